using Microsoft.Extensions.Logging;

namespace Orseis.Diagnostics;

/// <summary>
/// What Orseis records about a pool. Events and metrics cost nothing while no listener is attached; detectors cost
/// nothing while <see cref="Detectors"/> is <see cref="FindingKind.None"/> (the default).
/// </summary>
public sealed class DiagnosticsOptions
{
    /// <summary>
    /// Include the command text in <c>Orseis</c> EventSource events and as <c>db.query.text</c> on the <c>Orseis</c>
    /// ActivitySource's spans. Off by default: SQL text can carry literals. Parameter values are never recorded.
    /// </summary>
    public bool CaptureCommandText { get; set; }

    /// <summary>
    /// The detectors to run (flags). Default <see cref="FindingKind.None"/>: no clock reads, no stack captures.
    /// <see cref="FindingKind.All"/> turns every detector on.
    /// </summary>
    public FindingKind Detectors { get; set; } = FindingKind.None;

    /// <summary>
    /// With detectors on, also count the provider's idle and used connections where the provider reports every change
    /// as it happens (MySqlConnector's <c>db.client.connections.usage</c>): listening to it adds about 0.4 µs to every
    /// open and close of every MySqlConnector pool in the process, a third of what <see cref="FindingKind.All"/> costs
    /// per open. Off by default: its meter gives the same counts to OpenTelemetry directly. The counts are changes, so
    /// a pool counts them only when the first database over it sets this. Counts a provider gives only when asked
    /// (Npgsql's) and physical connects are read whatever this says.
    /// </summary>
    public bool ProviderPoolCounts { get; set; }

    /// <summary>Where findings are also written (as warnings), or null. Findings are always EventSource events and meter counts.</summary>
    public ILogger? Logger { get; set; }

    /// <summary>Churn: this many opens back to back on one logical flow is a finding. Default 10.</summary>
    public int ChurnThreshold { get; set; } = 10;

    /// <summary>
    /// Churn: an open within this time of the flow's previous release (and with no other connection of the flow held)
    /// continues a back-to-back streak; a longer pause, such as a worker waiting for its next message, ends it.
    /// Default 10 ms.
    /// </summary>
    public TimeSpan ChurnGap { get; set; } = TimeSpan.FromMilliseconds(10);

    /// <summary>
    /// Repeated statement: a statement with arguments run this many times one after another within one scope (or one
    /// flow without a scope) is an N+1 candidate. Default 5: two or three lookups of one kind are ordinary code.
    /// </summary>
    public int RepeatedStatementThreshold { get; set; } = 5;

    /// <summary>
    /// Repeated statement, without a scope: a call that begins (enters Open, or starts its statement on a held
    /// connection) within this time of the previous run's end continues the repetition; a longer pause (a worker
    /// waiting for its next message) ends the unit of work. A scope is one unit whatever its pauses. Default 20 ms.
    /// </summary>
    public TimeSpan RepeatedStatementGap { get; set; } = TimeSpan.FromMilliseconds(20);

    /// <summary>Slow open: warm opens that stay slower than this many times the pool's usual open time are a finding. Default 10.</summary>
    public double SlowOpenFactor { get; set; } = 10;

    /// <summary>
    /// Slow open: opens (and physical connects) faster than this are never findings, however they compare with the
    /// usual. Default 100 ms.
    /// </summary>
    public TimeSpan SlowOpenFloor { get; set; } = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// Saturation: a caller that queued for a connection (more callers wanted one than Max Pool Size) is a finding when
    /// it waited at least this long. Default 10 ms.
    /// </summary>
    public TimeSpan QueueWaitFloor { get; set; } = TimeSpan.FromMilliseconds(10);

    /// <summary>Held too long: a connection (or session) out longer than this is a leak suspect. Default 30 seconds.</summary>
    public TimeSpan HeldTooLongThreshold { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Thread-pool starvation: a probe work item queued to the thread pool every 100 ms that waits longer than this to
    /// run is a finding. Default 500 ms.
    /// </summary>
    public TimeSpan ThreadPoolDelayThreshold { get; set; } = TimeSpan.FromMilliseconds(500);

    /// <summary>
    /// The clock every detector reads, and the one the call watches time deadlines and the grace of a stopped call on
    /// (tests pass a fake one). Default <see cref="TimeProvider.System"/>.
    /// </summary>
    internal TimeProvider TimeProvider { get; set; } = TimeProvider.System;

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
        if (ChurnGap <= TimeSpan.Zero)
            throw Invalid(nameof(ChurnGap), $"must be positive, not {ChurnGap}");
        if (RepeatedStatementThreshold < 2)
            throw Invalid(nameof(RepeatedStatementThreshold), $"must be at least 2, not {RepeatedStatementThreshold}");
        if (RepeatedStatementGap <= TimeSpan.Zero)
            throw Invalid(nameof(RepeatedStatementGap), $"must be positive, not {RepeatedStatementGap}");
        if (!(SlowOpenFactor > 1) || double.IsInfinity(SlowOpenFactor))
            throw Invalid(nameof(SlowOpenFactor), $"must be a finite number above 1, not {SlowOpenFactor}");
        if (SlowOpenFloor < TimeSpan.Zero)
            throw Invalid(nameof(SlowOpenFloor), $"must be zero or positive, not {SlowOpenFloor}");
        if (QueueWaitFloor < TimeSpan.Zero)
            throw Invalid(nameof(QueueWaitFloor), $"must be zero or positive, not {QueueWaitFloor}");
        if (HeldTooLongThreshold <= TimeSpan.Zero)
            throw Invalid(nameof(HeldTooLongThreshold), $"must be positive, not {HeldTooLongThreshold}");
        if (ThreadPoolDelayThreshold <= TimeSpan.Zero)
            throw Invalid(nameof(ThreadPoolDelayThreshold), $"must be positive, not {ThreadPoolDelayThreshold}");
        if (FindingInterval < TimeSpan.Zero)
            throw Invalid(nameof(FindingInterval), $"must be zero or positive, not {FindingInterval}");
        if (FindingsKept < 0)
            throw Invalid(nameof(FindingsKept), $"must be zero or positive, not {FindingsKept}");
    }

    private static ArgumentException Invalid(string setting, string problem) =>
        new($"DiagnosticsOptions.{setting} {problem}.", setting);
}
