namespace Orseis.Trace.Monitor;

/// <summary>One pool over one interval of <c>monitor</c>; what <c>--format json</c> writes for it.</summary>
internal sealed record PoolSnapshot(
    string Pool,
    string System,
    double OpensPerSecond,
    double CommandsPerSecond,
    double? InUse,
    double? Idle,
    double? Max,
    double? Waiting,
    Quantiles? WaitMs,
    Quantiles? UseMs,
    Quantiles? CommandMs,
    double TimeoutsPerSecond,
    double? ActiveSessions,
    IReadOnlyList<FindingSnapshot> Findings,
    double RetriesPerSecond = 0);

/// <summary>A finding as <c>monitor</c> shows it.</summary>
internal sealed record FindingSnapshot(DateTime Time, string Kind, string Message, string Figures);

/// <summary>The runtime's thread pool (the System.Runtime meter).</summary>
internal sealed record ThreadPoolSnapshot(double? QueueLength, double? Threads);

/// <summary>Everything <c>monitor</c> shows for one interval.</summary>
internal sealed record MonitorSnapshot(
    DateTime Time, double IntervalSeconds, IReadOnlyList<PoolSnapshot> Pools, ThreadPoolSnapshot ThreadPool);
