namespace Orseis.Diagnostics;

/// <summary>
/// What was true when a caller entered Open, taken at one instant so the detectors compare like with like: the clock,
/// the demand on the pool (connections held plus callers inside Open, this one included) and the provider's count of
/// physical connections. <see cref="Started"/> is 0 when nothing is timed. <see cref="Flow"/> is the caller's logical flow
/// while the churn detector is on, read once here for the open, its hold and its release. <see cref="QueuedEntries"/>:
/// how many callers had entered Open with the pool oversubscribed so far (this one included), to tell whether any did
/// while this open ran.
/// </summary>
internal readonly record struct OpenStart(
    long Started, int InUse, int Demand, long PhysicalConnects, double CreateSeconds, bool Async, Detectors.FlowState? Flow = null,
    long QueuedEntries = 0, bool FirstWave = false)
{
    /// <summary>Whether this caller had to queue: more callers wanted a connection than Max Pool Size allows.</summary>
    public bool Queued(int? maxPoolSize) => maxPoolSize is { } max && Demand > max;
}

/// <summary>
/// What an open turned out to be, as the detectors see it once it completed. <see cref="OthersQueued"/>: other callers
/// queued for the pool while this open ran, so it may have waited for the same releases even if it entered with room
/// left (a provider need not hand out connections in the order callers entered Open: MySql.Data does not).
/// </summary>
internal readonly record struct OpenOutcome(
    TimeSpan Elapsed, long PhysicalConnectsDuring, double CreateMsDuring, bool Queued, bool OthersQueued = false)
{
    /// <summary>Neither queued for the pool nor made a new physical connection: a pool hit, what an open usually costs.</summary>
    public bool Warm => !Queued && PhysicalConnectsDuring == 0;

    /// <summary>Mean time of the provider's physical connects that completed during this open, or 0.</summary>
    public double MeanCreateMs => PhysicalConnectsDuring > 0 ? CreateMsDuring / PhysicalConnectsDuring : 0;
}
