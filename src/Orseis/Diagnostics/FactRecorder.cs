using System.Runtime.CompilerServices;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics;

/// <summary>
/// Writes every fact the pool's detectors hear as an event of the <c>Orseis</c> EventSource (keyword
/// <see cref="OrseisEventSource.Keywords.Facts"/>), so <c>orseis-trace report</c> can run the same detector classes over a
/// recording (<see cref="Replay.FactReplay"/>). Registered first in <see cref="PoolObservers"/>' table whenever a detector
/// is on, so the facts are written in the order the detectors hear them. It hears the steps only while the EventSource
/// has a session (<see cref="OnlyWhileTraced"/>), so a pool nobody traces never calls it; each step then returns at once
/// unless the session asks for the facts. While recorded, a step allocates its event's arguments. The pool is described
/// (<see cref="OrseisEventSource.FactPool"/>)
/// before its first fact after each session is enabled.
/// </summary>
internal sealed class FactRecorder : PoolObserver
{
    private static int _instances;
    private static long _flows;

    /// <summary>Each pool's number in the facts, by its finding log: <see cref="ChurnSites"/> writes under its recorder's.</summary>
    private static readonly ConditionalWeakTable<FindingLog, StrongBox<int>> Instances = new();

    private readonly ObserverContext _context;
    private readonly int _instance = Interlocked.Increment(ref _instances);
    private readonly long _created;
    private int _described;

    public FactRecorder(ObserverContext context)
    {
        _context = context;
        _created = context.Log.Time.GetTimestamp();
        Instances.AddOrUpdate(context.Log, new StrongBox<int>(_instance));
    }

    private static OrseisEventSource Events => OrseisEventSource.Log;

    public override HeardFacts Hears =>
        HeardFacts.OpenStarting | HeardFacts.OpenCompleted | HeardFacts.OpenFailed | HeardFacts.Acquired | HeardFacts.Released
        | HeardFacts.CommandFailed;

    public override bool OnlyWhileTraced => true;

    private string Pool => _context.Log.PoolName;

    private DiagnosticsOptions Options => _context.Log.Options;

    public override void OnOpenStarting(in OpenStart start)
    {
        if (!Events.FactsOn)
            return;
        Describe();
        Events.FactOpenStart(Pool, _instance, start.Started, start.InUse, start.Demand, start.PhysicalConnects, start.CreateSeconds,
            start.Async, FlowId(start.Flow), start.QueuedEntries, start.FirstWave, start.AfterLoss, ColdStarts.InWarmUp.Value);
    }

    public override void OnOpenCompleted(in CompletedOpen open)
    {
        if (!Events.FactsOn)
            return;
        Describe();
        OpenStart s = open.Start;
        OpenOutcome o = open.Outcome;
        Events.FactOpenCompleted(Pool, _instance, s.Started, s.InUse, s.Demand, s.PhysicalConnects, s.CreateSeconds, s.Async,
            FlowId(s.Flow), s.QueuedEntries, s.FirstWave, s.AfterLoss, ColdStarts.InWarmUp.Value, o.Elapsed.Ticks,
            o.PhysicalConnectsDuring, o.CreateMsDuring, o.Queued, o.OthersQueued, open.At, open.AfterFirstWave,
            open.ThreadPoolDelay.Ticks, _context.ProviderPool?.Idle ?? -1);
    }

    public override void OnOpenFailed(in FailedOpen open)
    {
        if (!Events.FactsOn)
            return;
        Describe();
        OpenStart s = open.Start;
        OpenFailure f = open.Failure;
        Exception cause = f.Error.InnerException is { } inner && f.Error is OperationCanceledException ? inner : f.Error;
        PoolExhaustedException? e = open.Exhausted;
        Events.FactOpenFailed(Pool, _instance, s.Started, s.InUse, s.Demand, s.PhysicalConnects, s.CreateSeconds, s.Async,
            FlowId(s.Flow), s.QueuedEntries, s.FirstWave, s.AfterLoss, ColdStarts.InWarmUp.Value, _context.Log.Time.GetTimestamp(),
            (int)f.Timeout, f.Cancelled, f.BrokeWhileOpening, cause.GetType().FullName ?? "", cause.Message, e is not null,
            e?.InUse ?? 0, e?.Waiting ?? 0, e?.Connecting ?? 0, e?.LongestHeld?.TotalMilliseconds ?? -1,
            e?.Parked ?? 0);
    }

    public override void OnAcquired(in Acquire acquire)
    {
        if (!Events.FactsOn)
            return;
        Describe();
        // Where is formatted only for a connection held across calls (sessions, streams), and only while recorded.
        Events.FactAcquired(Pool, _instance, acquire.At, acquire.Hold, acquire.Owner, acquire.HeldByDesign, FlowId(acquire.Flow),
            acquire.Where?.Formatted ?? "");
    }

    public override void OnReleased(in Release release)
    {
        if (!Events.FactsOn)
            return;
        Describe();
        HolderTable.Holder h = release.Holder;
        Events.FactReleased(Pool, _instance, h.Started, release.Held.Ticks, release.At, FlowId(h.Flow), h.Owner, h.Reported, release.Hold,
            h.Kind);
    }

    public override void OnCommandFailed(in CommandFailure failure)
    {
        if (!Events.FactsOn)
            return;
        Describe();
        int conflict = ServerTransactions.ConflictOf(failure.Error) is { } c ? (int)c : -1;
        Events.FactCommandFailed(Pool, _instance, _context.Log.Time.GetTimestamp(), conflict, failure.Error.GetType().FullName ?? "",
            failure.Sql ?? "");
    }

    /// <summary>
    /// The call site the churn detector read as a flow's streak reached its threshold (it reads the caller's stack, which a
    /// replay cannot): written right after that detector, before the open completes. A streak already past the threshold
    /// when the session began (a trace attached to a process that churns) has its site written once in that session, at
    /// its first open there, so the replay can name it too.
    /// </summary>
    internal sealed class ChurnSites(FindingLog log) : PoolObserver
    {
        private readonly int _instance = Instances.TryGetValue(log, out StrongBox<int>? box) ? box.Value : 0;

        public override HeardFacts Hears => HeardFacts.OpenStarting;

        public override bool OnlyWhileTraced => true;

        public override void OnOpenStarting(in OpenStart start)
        {
            if (!Events.FactsOn || start.Flow is not { Site: { } site } flow || flow.Streak < log.Options.ChurnThreshold)
                return;
            int session = Events.FactsGeneration;
            if (flow.Streak > log.Options.ChurnThreshold && Volatile.Read(ref flow.SiteSession) == session)
                return;
            Volatile.Write(ref flow.SiteSession, session);
            Events.FactChurnSite(log.PoolName, _instance, FlowId(flow), site);
        }
    }

    /// <summary>A flow's number in the facts (0 for none), given on first use.</summary>
    private static long FlowId(FlowState? flow)
    {
        if (flow is null)
            return 0;
        long id = Volatile.Read(ref flow.FactId);
        if (id != 0)
            return id;
        long next = Interlocked.Increment(ref _flows);
        return Interlocked.CompareExchange(ref flow.FactId, next, 0) is var was && was != 0 ? was : next;
    }

    /// <summary>Describes the pool once per enabled session, before its first fact there.</summary>
    private void Describe()
    {
        int generation = Events.FactsGeneration;
        if (Volatile.Read(ref _described) == generation || Interlocked.Exchange(ref _described, generation) == generation)
            return;
        DiagnosticsOptions o = Options;
        Events.FactPool(Pool, _instance, _context.Log.Time.TimestampFrequency, _created, _context.MaxPoolSize ?? -1,
            (int)_context.Connects, (int)o.Detectors, o.ChurnGap.TotalMilliseconds, o.ChurnThreshold,
            o.SlowOpenFloor.TotalMilliseconds, o.SlowOpenFactor, o.QueueWaitFloor.TotalMilliseconds, o.FindingInterval.TotalMilliseconds,
            o.ThreadPoolDelayThreshold.TotalMilliseconds, o.HeldTooLongThreshold.TotalMilliseconds);
    }

}
