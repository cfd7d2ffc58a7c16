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
    public FindingKind Detectors { get => _detectors; set => _detectors = value; }

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
    public int ChurnThreshold { get => _churnThreshold; set => _churnThreshold = value; }

    /// <summary>
    /// Churn: an open within this time of the flow's previous release (and with no other connection of the flow held)
    /// continues a back-to-back streak; a longer pause, such as a worker waiting for its next message, ends it.
    /// Default 10 ms.
    /// </summary>
    public TimeSpan ChurnGap { get => _churnGap; set => _churnGap = value; }

    /// <summary>
    /// Repeated statement: a statement with arguments run this many times one after another within one scope (or one
    /// flow without a scope) is an N+1 candidate. Default 5: two or three lookups of one kind are ordinary code.
    /// </summary>
    public int RepeatedStatementThreshold { get => _repeatedStatementThreshold; set => _repeatedStatementThreshold = value; }

    /// <summary>
    /// Repeated statement, without a scope: a call that begins (enters Open, or starts its statement on a held
    /// connection) within this time of the previous run's end continues the repetition; a longer pause (a worker
    /// waiting for its next message) ends the unit of work. A scope is one unit whatever its pauses. Default 20 ms.
    /// </summary>
    public TimeSpan RepeatedStatementGap { get => _repeatedStatementGap; set => _repeatedStatementGap = value; }

    /// <summary>Slow open: warm opens that stay slower than this many times the pool's usual open time are a finding. Default 10.</summary>
    public double SlowOpenFactor { get => _slowOpenFactor; set => _slowOpenFactor = value; }

    /// <summary>
    /// Slow open: opens (and physical connects) faster than this are never findings, however they compare with the
    /// usual. Default 100 ms.
    /// </summary>
    public TimeSpan SlowOpenFloor { get => _slowOpenFloor; set => _slowOpenFloor = value; }

    /// <summary>
    /// Saturation: a caller that queued for a connection (more callers wanted one than Max Pool Size) is a finding when
    /// it waited at least this long. Default 10 ms.
    /// </summary>
    public TimeSpan QueueWaitFloor { get => _queueWaitFloor; set => _queueWaitFloor = value; }

    /// <summary>Held too long: a connection (or session) out longer than this is a leak suspect. Default 30 seconds.</summary>
    public TimeSpan HeldTooLongThreshold { get => _heldTooLongThreshold; set => _heldTooLongThreshold = value; }

    /// <summary>
    /// Thread-pool starvation: a probe work item queued to the thread pool every 100 ms that waits longer than this to
    /// run is a finding. Default 500 ms.
    /// </summary>
    public TimeSpan ThreadPoolDelayThreshold { get => _threadPoolDelayThreshold; set => _threadPoolDelayThreshold = value; }

    /// <summary>
    /// The clock every detector reads, and the one the call watches time deadlines and the grace of a stopped call on
    /// (tests pass a fake one). Default <see cref="TimeProvider.System"/>.
    /// </summary>
    internal TimeProvider TimeProvider { get; set; } = TimeProvider.System;

    /// <summary>
    /// The least time between two findings of the same kind on one pool (churn is reported once per window and flow,
    /// held-too-long once per connection, pool timeouts always). Zero reports every one. Default 5 seconds.
    /// </summary>
    public TimeSpan FindingInterval { get => _findingInterval; set => _findingInterval = value; }

    /// <summary>How many recent findings <see cref="PoolReport"/> keeps. Default 50.</summary>
    public int FindingsKept { get => _findingsKept; set => _findingsKept = value; }

    // Validate reads the fields: every database validates these settings, and a property read there is a method the JIT
    // compiles at the process's start even when no detector ever reads it (issue 44). The messages are made by Invalid, so
    // Validate itself stays small (the JIT compiles it whole, messages included, though they are made only on a failure).
    private FindingKind _detectors = FindingKind.None;
    private int _churnThreshold = 10;
    private TimeSpan _churnGap = TimeSpan.FromMilliseconds(10);
    private int _repeatedStatementThreshold = 5;
    private TimeSpan _repeatedStatementGap = TimeSpan.FromMilliseconds(20);
    private double _slowOpenFactor = 10;
    private TimeSpan _slowOpenFloor = TimeSpan.FromMilliseconds(100);
    private TimeSpan _queueWaitFloor = TimeSpan.FromMilliseconds(10);
    private TimeSpan _heldTooLongThreshold = TimeSpan.FromSeconds(30);
    private TimeSpan _threadPoolDelayThreshold = TimeSpan.FromMilliseconds(500);
    private TimeSpan _findingInterval = TimeSpan.FromSeconds(5);
    private int _findingsKept = 50;

    internal void Validate()
    {
        if ((_detectors & ~FindingKind.All) != 0)
            throw Invalid(nameof(Detectors), "has undefined flags (", (int)_detectors, "); combine FindingKind values");
        if (_churnThreshold < 2)
            throw Invalid(nameof(ChurnThreshold), "must be at least 2, not ", _churnThreshold);
        if (_churnGap <= TimeSpan.Zero)
            throw Invalid(nameof(ChurnGap), "must be positive, not ", _churnGap);
        if (_repeatedStatementThreshold < 2)
            throw Invalid(nameof(RepeatedStatementThreshold), "must be at least 2, not ", _repeatedStatementThreshold);
        if (_repeatedStatementGap <= TimeSpan.Zero)
            throw Invalid(nameof(RepeatedStatementGap), "must be positive, not ", _repeatedStatementGap);
        if (!(_slowOpenFactor > 1) || double.IsInfinity(_slowOpenFactor))
            throw Invalid(nameof(SlowOpenFactor), "must be a finite number above 1, not ", _slowOpenFactor);
        if (_slowOpenFloor < TimeSpan.Zero)
            throw Invalid(nameof(SlowOpenFloor), "must be zero or positive, not ", _slowOpenFloor);
        if (_queueWaitFloor < TimeSpan.Zero)
            throw Invalid(nameof(QueueWaitFloor), "must be zero or positive, not ", _queueWaitFloor);
        if (_heldTooLongThreshold <= TimeSpan.Zero)
            throw Invalid(nameof(HeldTooLongThreshold), "must be positive, not ", _heldTooLongThreshold);
        if (_threadPoolDelayThreshold <= TimeSpan.Zero)
            throw Invalid(nameof(ThreadPoolDelayThreshold), "must be positive, not ", _threadPoolDelayThreshold);
        if (_findingInterval < TimeSpan.Zero)
            throw Invalid(nameof(FindingInterval), "must be zero or positive, not ", _findingInterval);
        if (_findingsKept < 0)
            throw Invalid(nameof(FindingsKept), "must be zero or positive, not ", _findingsKept);
    }

    /// <summary>"DiagnosticsOptions.{setting} {problem}{value}{after}.", naming the setting.</summary>
    private static ArgumentException Invalid<T>(string setting, string problem, T value, string after = "") =>
        new($"DiagnosticsOptions.{setting} {problem}{value}{after}.", setting);
}
