using System.Diagnostics.Tracing;

namespace Orseis.Diagnostics;

/// <summary>
/// The detectors' facts (keyword <see cref="Keywords.Facts"/>, level Verbose, off unless a session asks for that keyword
/// by name: a session that enables every keyword, as an EventListener does by default, does not get them): exactly what
/// each step told the pool's detectors, written by <see cref="FactRecorder"/>, so <c>orseis-trace report</c> can run the
/// same detector classes over a recording (<see cref="Replay.FactReplay"/>). Numbers, booleans and timestamps of the
/// pool's clock (<c>FactPool</c> gives its frequency); a flow is a number, never an object; a failure is its type name
/// and, for an open, its message (a host, a port, a reason: what the <c>Finding</c> event says too); a statement's text
/// only when <see cref="DiagnosticsOptions.CaptureCommandText"/> is on; never a parameter or row value. Shape version 1:
/// fields are only ever added at the end.
/// </summary>
internal sealed partial class OrseisEventSource
{
    private int _factsGeneration;

    /// <summary>Counts the sessions enabled on this source: a recorder describes its pool again after each.</summary>
    public int FactsGeneration => Volatile.Read(ref _factsGeneration);

    /// <summary>
    /// A keyword no event declares: on only while a session enables every keyword (a mask of 0, <c>0xFFFFFFFF</c> or all
    /// bits), which did not ask for the facts by name and should not pay for them on every call.
    /// </summary>
    private const EventKeywords EveryKeyword = (EventKeywords)0x8000_0000;

    /// <summary>
    /// Whether the facts are asked for, by a mask that names their keyword and not every keyword: what every
    /// <see cref="FactRecorder"/> step checks first (while nobody listens, one field read). Sessions' masks are combined,
    /// so while one session enables every keyword none gets the facts.
    /// </summary>
    public bool FactsOn => IsEnabled(EventLevel.Verbose, Keywords.Facts) && !IsEnabled(EventLevel.Verbose, EveryKeyword);

    /// <summary>A pool as its detectors know it: its clock, its size, how its connects are known and the options that judge.</summary>
    [Event(7, Level = EventLevel.Verbose, Keywords = Keywords.Facts, Version = 1)]
    public void FactPool(
        string pool, int instance, long frequency, long created, int maxPoolSize, int connects, int detectors, double churnGapMs,
        int churnThreshold, double slowOpenFloorMs, double slowOpenFactor, double queueWaitFloorMs, double findingIntervalMs,
        double threadPoolDelayMs, double heldTooLongMs) =>
        WriteEvent(7, pool, instance, frequency, created, maxPoolSize, connects, detectors, churnGapMs, churnThreshold, slowOpenFloorMs,
            slowOpenFactor, queueWaitFloorMs, findingIntervalMs, threadPoolDelayMs, heldTooLongMs);

    /// <summary>A caller entered Open (<see cref="OpenStart"/>).</summary>
    [Event(8, Level = EventLevel.Verbose, Keywords = Keywords.Facts, Version = 1)]
    public void FactOpenStart(
        string pool, int instance, long started, int inUse, int demand, long physicalConnects, double createSeconds, bool async,
        long flow, long queuedEntries, bool firstWave, bool afterLoss, bool warmUp) =>
        WriteEvent(8, pool, instance, started, inUse, demand, physicalConnects, createSeconds, async, flow, queuedEntries, firstWave,
            afterLoss, warmUp);

    /// <summary>An open completed (<see cref="CompletedOpen"/>): how it began, then how it turned out.</summary>
    [Event(9, Level = EventLevel.Verbose, Keywords = Keywords.Facts, Version = 1)]
    public void FactOpenCompleted(
        string pool, int instance, long started, int inUse, int demand, long physicalConnects, double createSeconds, bool async,
        long flow, long queuedEntries, bool firstWave, bool afterLoss, bool warmUp, long elapsedTicks, long physicalConnectsDuring,
        double createMsDuring, bool queued, bool othersQueued, long at, bool afterFirstWave, long threadPoolDelayTicks, long idle) =>
        WriteEvent(9, pool, instance, started, inUse, demand, physicalConnects, createSeconds, async, flow, queuedEntries, firstWave,
            afterLoss, warmUp, elapsedTicks, physicalConnectsDuring, createMsDuring, queued, othersQueued, at, afterFirstWave,
            threadPoolDelayTicks, idle);

    /// <summary>
    /// An open failed (<see cref="FailedOpen"/>): how it began, the failure as read (timeout kind, cancelled, broken while
    /// opening), its cause, and for a timeout what the caller was told (held, waiting, connecting, the longest hold, parked in
    /// scopes; version 2 added <paramref name="parked"/>).
    /// </summary>
    [Event(10, Level = EventLevel.Verbose, Keywords = Keywords.Facts, Version = 2)]
    public void FactOpenFailed(
        string pool, int instance, long started, int inUse, int demand, long physicalConnects, double createSeconds, bool async,
        long flow, long queuedEntries, bool firstWave, bool afterLoss, bool warmUp, long at, int timeout, bool cancelled,
        bool brokeWhileOpening, string errorType, string errorMessage, bool exhausted, int held, int waiting, int connecting,
        double longestHeldMs, int parked) =>
        WriteEvent(10, pool, instance, started, inUse, demand, physicalConnects, createSeconds, async, flow, queuedEntries, firstWave,
            afterLoss, warmUp, at, timeout, cancelled, brokeWhileOpening, errorType, errorMessage, exhausted, held, waiting, connecting,
            longestHeldMs, parked);

    /// <summary>
    /// A connection was handed to its holder (<see cref="Acquire"/>) at <paramref name="at"/>: its place in the holder table,
    /// who holds it, whether by design, its flow, and where it was acquired (sessions and streams; "" otherwise).
    /// </summary>
    [Event(11, Level = EventLevel.Verbose, Keywords = Keywords.Facts, Version = 1)]
    public void FactAcquired(string pool, int instance, long at, int hold, string owner, bool heldByDesign, long flow, string site) =>
        WriteEvent(11, pool, instance, at, hold, owner, heldByDesign, flow, site);

    /// <summary>
    /// A connection went back (<see cref="Release"/>): its hold's start, length, end, flow and holder, and (version 2) its
    /// kind, the number of the statement that began it (<see cref="Detectors.HoldKinds"/>, 0 for none).
    /// </summary>
    [Event(12, Level = EventLevel.Verbose, Keywords = Keywords.Facts, Version = 2)]
    public void FactReleased(
        string pool, int instance, long started, long heldTicks, long at, long flow, string owner, bool reported, int hold, int kind) =>
        WriteEvent(12, pool, instance, started, heldTicks, at, flow, owner, reported, hold, kind);

    /// <summary>
    /// A statement failed (<see cref="CommandFailure"/>): the lock conflict it was (-1 none), its error's type, and its text
    /// when captured ("" otherwise).
    /// </summary>
    [Event(13, Level = EventLevel.Verbose, Keywords = Keywords.Facts, Version = 1)]
    public void FactCommandFailed(string pool, int instance, long at, int conflict, string errorType, string sql) =>
        WriteEvent(13, pool, instance, at, conflict, errorType, sql);

    /// <summary>The call site the churn detector read as <paramref name="flow"/>'s streak reached its threshold.</summary>
    [Event(14, Level = EventLevel.Verbose, Keywords = Keywords.Facts, Version = 1)]
    public void FactChurnSite(string pool, int instance, long flow, string site) => WriteEvent(14, pool, instance, flow, site);

    /// <inheritdoc/>
    protected override void OnEventCommand(EventCommandEventArgs command)
    {
        if (command.Command == EventCommand.Enable)
            Interlocked.Increment(ref _factsGeneration);
    }
}
