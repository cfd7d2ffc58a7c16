using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics;

/// <summary>
/// What was true when a caller entered Open, taken at one instant so the detectors compare like with like: the clock,
/// the demand on the pool (connections held plus callers inside Open, this one included) and the provider's count of
/// physical connections. <see cref="Started"/> is 0 when nothing is timed. <see cref="Flow"/> is the caller's logical flow
/// while an observer needs flows, read once here for the open, its hold and its release. <see cref="QueuedEntries"/>:
/// how many callers had entered Open with the pool oversubscribed so far (this one included), to tell whether any did
/// while this open ran. <see cref="FirstWave"/>: the open belongs to a first wave of connects (<see cref="ConnectWaves"/>),
/// one that began because connections were lost when <see cref="AfterLoss"/>; read only while an observer needs waves.
/// </summary>
internal readonly record struct OpenStart(
    long Started, int InUse, int Demand, long PhysicalConnects, double CreateSeconds, bool Async, FlowState? Flow = null,
    long QueuedEntries = 0, bool FirstWave = false, bool AfterLoss = false)
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

/// <summary>
/// An open that completed with a connection, as every observer hears it (<see cref="PoolObserver.OnOpenCompleted"/>).
/// </summary>
/// <param name="Start">How it began.</param>
/// <param name="Outcome">How it turned out.</param>
/// <param name="At">When it completed (a timestamp of the pool's clock).</param>
/// <param name="AfterFirstWave">It began after the first physical connect of the pool's current wave completed
/// (<see cref="ConnectWaves"/>).</param>
/// <param name="ThreadPoolDelay">How late the thread pool ran work while it ran (<see cref="ThreadPoolProbe.DelayWithin"/>):
/// read for an open slower than <see cref="DiagnosticsOptions.SlowOpenFloor"/> while an observer needs it, zero otherwise.
/// Sync opens too: MySql.Data's synchronous Open blocks on tasks that need a pool thread to finish a connect.</param>
internal readonly record struct CompletedOpen(OpenStart Start, OpenOutcome Outcome, long At, bool AfterFirstWave, TimeSpan ThreadPoolDelay)
{
    // Fields, not properties: an observer reading open.Start.Flow through its `in` fact reads in place, where a property
    // getter would copy the whole start (or outcome) first, on every step of every open.
#pragma warning disable CA1051 // a fact's parts, read in place on the hot path
    public readonly OpenStart Start = Start;
    public readonly OpenOutcome Outcome = Outcome;
#pragma warning restore CA1051
}

/// <summary>An open that failed, as every observer hears it (<see cref="PoolObserver.OnOpenFailed"/>).</summary>
/// <param name="Start">How it began.</param>
/// <param name="Failure">What the failure was.</param>
/// <param name="Exhausted">What the caller is told instead when the open timed out; null otherwise.</param>
/// <param name="Lost">Whether its connect timed out while the server completed others (lost on the way), asked once.</param>
internal readonly record struct FailedOpen(
    OpenStart Start, OpenFailure Failure, PoolExhaustedException? Exhausted, LostConnect Lost = default)
{
#pragma warning disable CA1051 // read in place, as CompletedOpen's
    public readonly OpenStart Start = Start;
#pragma warning restore CA1051
}

/// <summary>A connection handed to its holder (<see cref="PoolObserver.OnAcquired"/>).</summary>
/// <param name="At">When (a timestamp of the pool's clock): the hold starts then.</param>
/// <param name="Hold">Its place in the pool's <see cref="HolderTable"/>, given back at its <see cref="Release"/>.</param>
/// <param name="Owner">Who holds it (a call, a session, a stream).</param>
/// <param name="HeldByDesign">Held for the pool's life (ReuseConnection's shared connection): timed, never a leak suspect.</param>
/// <param name="Where">Where it was acquired, for connections held across calls while an observer needs it; else null.</param>
/// <param name="Flow">The logical flow that opened it, while an observer needs flows.</param>
internal readonly record struct Acquire(long At, int Hold, string Owner, bool HeldByDesign, HolderTable.Acquirer? Where, FlowState? Flow);

/// <summary>A connection that went back to the pool (<see cref="PoolObserver.OnReleased"/>).</summary>
/// <param name="Holder">Who held it, since when, with which flow.</param>
/// <param name="Held">For how long.</param>
/// <param name="At">When it went back (a timestamp of the pool's clock).</param>
/// <param name="Hold">The place it held in the pool's <see cref="HolderTable"/> (<see cref="Acquire.Hold"/>).</param>
internal readonly record struct Release(HolderTable.Holder Holder, TimeSpan Held, long At, int Hold = HolderTable.NoHold)
{
#pragma warning disable CA1051 // read in place, as CompletedOpen's
    public readonly HolderTable.Holder Holder = Holder;
#pragma warning restore CA1051
}

/// <summary>A statement that failed (<see cref="PoolObserver.OnCommandFailed"/>).</summary>
/// <param name="Error">What failed it.</param>
/// <param name="Sql">Its text when <see cref="DiagnosticsOptions.CaptureCommandText"/> allows it; null otherwise.</param>
internal readonly record struct CommandFailure(Exception Error, string? Sql);
