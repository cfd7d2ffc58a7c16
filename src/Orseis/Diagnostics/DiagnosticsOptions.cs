using Microsoft.Extensions.Logging;

namespace Orseis.Diagnostics;

/// <summary>
/// What Orseis records about a pool. Events and metrics cost nothing while no listener is attached; detectors cost
/// nothing while <see cref="Detectors"/> is <see cref="FindingKind.None"/> (the default).
/// </summary>
public sealed class DiagnosticsOptions
{
    /// <summary>
    /// Include the command text in <c>Orseis</c> EventSource events. Off by default: SQL text can carry literals.
    /// Parameter values are never recorded.
    /// </summary>
    public bool CaptureCommandText { get; set; }

    /// <summary>
    /// The detectors to run (flags). Default <see cref="FindingKind.None"/>: no clock reads, no stack captures.
    /// <see cref="FindingKind.All"/> turns every detector on.
    /// </summary>
    public FindingKind Detectors { get; set; } = FindingKind.None;

    /// <summary>Where findings are also written (as warnings), or null. Findings are always EventSource events and meter counts.</summary>
    public ILogger? Logger { get; set; }

    /// <summary>Churn: this many opens on one logical flow within <see cref="ChurnWindow"/> is a finding. Default 10.</summary>
    public int ChurnThreshold { get; set; } = 10;

    /// <summary>Churn: the window in which <see cref="ChurnThreshold"/> opens count as "in a row". Default 1 second.</summary>
    public TimeSpan ChurnWindow { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>Slow open: an open slower than this many times the pool's usual open time is a finding. Default 10.</summary>
    public double SlowOpenFactor { get; set; } = 10;

    /// <summary>Slow open: opens faster than this are never findings, however they compare with the usual. Default 50 ms.</summary>
    public TimeSpan SlowOpenFloor { get; set; } = TimeSpan.FromMilliseconds(50);

    /// <summary>
    /// Saturation: a caller entering Open while at least this fraction of Max Pool Size is in use is a finding.
    /// Between 0 (exclusive) and 1 (inclusive). Default 0.8.
    /// </summary>
    public double SaturationThreshold { get; set; } = 0.8;

    /// <summary>Held too long: a connection (or session) out longer than this is a leak suspect. Default 30 seconds.</summary>
    public TimeSpan HeldTooLongThreshold { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Thread-pool starvation: a synchronous call made while at least this many work items wait in the thread pool's
    /// queue is a finding. Default 50.
    /// </summary>
    public int ThreadPoolQueueThreshold { get; set; } = 50;

    /// <summary>Pool size: a configured Max Pool Size more than this many times the recommended size is a finding. Default 4.</summary>
    public double OversizeFactor { get; set; } = 4;

    /// <summary>
    /// The least time between two findings of the same kind on one pool (churn is reported once per window and flow,
    /// held-too-long once per connection, pool timeouts always). Zero reports every one. Default 5 seconds.
    /// </summary>
    public TimeSpan FindingInterval { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>How many recent findings <see cref="PoolReport"/> keeps. Default 50.</summary>
    public int FindingsKept { get; set; } = 50;

    internal void Validate()
    {
        if ((Detectors & ~FindingKind.All) != 0)
            throw Invalid(nameof(Detectors), $"has undefined flags ({(int)Detectors}); combine FindingKind values");
        if (ChurnThreshold < 2)
            throw Invalid(nameof(ChurnThreshold), $"must be at least 2, not {ChurnThreshold}");
        if (ChurnWindow <= TimeSpan.Zero)
            throw Invalid(nameof(ChurnWindow), $"must be positive, not {ChurnWindow}");
        if (!(SlowOpenFactor > 1) || double.IsInfinity(SlowOpenFactor))
            throw Invalid(nameof(SlowOpenFactor), $"must be a finite number above 1, not {SlowOpenFactor}");
        if (SlowOpenFloor < TimeSpan.Zero)
            throw Invalid(nameof(SlowOpenFloor), $"must be zero or positive, not {SlowOpenFloor}");
        if (!(SaturationThreshold > 0 && SaturationThreshold <= 1))
            throw Invalid(nameof(SaturationThreshold), $"must be above 0 and at most 1, not {SaturationThreshold}");
        if (HeldTooLongThreshold <= TimeSpan.Zero)
            throw Invalid(nameof(HeldTooLongThreshold), $"must be positive, not {HeldTooLongThreshold}");
        if (ThreadPoolQueueThreshold < 1)
            throw Invalid(nameof(ThreadPoolQueueThreshold), $"must be positive, not {ThreadPoolQueueThreshold}");
        if (!(OversizeFactor > 1) || double.IsInfinity(OversizeFactor))
            throw Invalid(nameof(OversizeFactor), $"must be a finite number above 1, not {OversizeFactor}");
        if (FindingInterval < TimeSpan.Zero)
            throw Invalid(nameof(FindingInterval), $"must be zero or positive, not {FindingInterval}");
        if (FindingsKept < 0)
            throw Invalid(nameof(FindingsKept), $"must be zero or positive, not {FindingsKept}");
    }

    private static ArgumentException Invalid(string setting, string problem) =>
        new($"DiagnosticsOptions.{setting} {problem}.", setting);
}
