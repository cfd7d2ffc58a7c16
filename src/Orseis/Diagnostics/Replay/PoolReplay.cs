using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics.Replay;

/// <summary>
/// One recorded pool replayed: the observers <see cref="PoolObservers.For"/> makes for the detectors the process ran
/// (those that can run offline, <see cref="Replayable"/>) with its options, a <see cref="FindingLog"/> on a
/// <see cref="ReplayClock"/>, each fact rebuilt from its event and told to the observers that hear it, in the recorded
/// order, as <see cref="PoolTelemetry"/> told them in the process. A flow is a <see cref="FlowState"/> per recorded number.
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage(
    "Design", "CA1031:Do not catch general exception types",
    Justification = "A detector that throws ends its step, as in the process.")]
internal sealed class PoolReplay
{
    /// <summary>
    /// The detectors that can judge offline: all but the thread-pool starvation detector, which watches the runtime live,
    /// the repeated-statement detector, whose statements are not among the facts (its findings are the process's), and the
    /// frequent-retries detector, whose retries are not among them either.
    /// The held-too-long detector scans a holder table the replay fills from the acquire and release facts.
    /// </summary>
    public const FindingKind Replayable =
        FindingKind.All & ~FindingKind.ThreadPoolStarvation & ~FindingKind.RepeatedStatement & ~FindingKind.FrequentRetries;

    private readonly ReplayClock _clock;
    private readonly FindingLog _log;
    private readonly PoolObservers _observers;
    private readonly Dictionary<long, FlowState> _flows = [];
    private readonly HolderTable _holders;
    private readonly ConnectsAnswered _answered = new();

    /// <summary>The holds open in the replay, by the process's hold number: the key object and the replay's own hold.</summary>
    private readonly Dictionary<int, (object Key, int Hold)> _held = [];
    private readonly int? _maxPoolSize;
    private long _opens;

    public PoolReplay(in RecordedFact pool)
    {
        Pool = pool.Text("pool");
        Instance = pool.Int("instance");
        Detectors = (FindingKind)pool.Int("detectors");
        _clock = new ReplayClock(pool.Long("frequency")) { Now = pool.Long("created"), Utc = pool.Time };
        var options = new DiagnosticsOptions
        {
            Detectors = Detectors & Replayable,
            ChurnGap = TimeSpan.FromMilliseconds(pool.Double("churnGapMs")),
            ChurnThreshold = pool.Int("churnThreshold"),
            SlowOpenFloor = TimeSpan.FromMilliseconds(pool.Double("slowOpenFloorMs")),
            SlowOpenFactor = pool.Double("slowOpenFactor"),
            QueueWaitFloor = TimeSpan.FromMilliseconds(pool.Double("queueWaitFloorMs")),
            FindingInterval = TimeSpan.FromMilliseconds(pool.Double("findingIntervalMs")),
            ThreadPoolDelayThreshold = TimeSpan.FromMilliseconds(pool.Double("threadPoolDelayMs")),
            HeldTooLongThreshold = TimeSpan.FromMilliseconds(pool.Double("heldTooLongMs")),
            FindingsKept = 10_000,
            TimeProvider = _clock,
        };
        _maxPoolSize = pool.Int("maxPoolSize") is >= 0 and var max ? max : null;
        _log = new FindingLog(Pool, [], options, _clock) { AttachesToSpans = false };
        var connects = (ConnectCount)pool.Int("connects");
        _holders = new HolderTable(_clock, _maxPoolSize);
        _observers = PoolObservers.For(new ObserverContext(_log, _maxPoolSize, _holders, connects, null, null));
    }

    public string Pool { get; }

    /// <summary>Which of the process's pools of that name (a number per pool in the process).</summary>
    public int Instance { get; }

    /// <summary>The detectors the process ran on this pool.</summary>
    public FindingKind Detectors { get; }

    /// <summary>How many facts were replayed.</summary>
    public long Facts { get; private set; }

    /// <summary>Tells the observers one recorded fact of this pool.</summary>
    public void Replay(in RecordedFact fact)
    {
        Facts++;
        _clock.Utc = fact.Time;
        CallSites.Replaying = true;
        try
        {
            switch (fact.EventId)
            {
                case 8:
                    OpenStarting(fact);
                    break;
                case 9:
                    OpenCompleted(fact);
                    break;
                case 10:
                    OpenFailed(fact);
                    break;
                case 11:
                    Acquired(fact);
                    break;
                case 12:
                    Released(fact);
                    break;
                case 13:
                    CommandFailed(fact);
                    break;
                case 14:
                    // Right after the open start whose streak reached the threshold, or the first of the session for a streak
                    // past it: the churn detector keeps it for the streak when its own count reaches the threshold.
                    if (Flow(fact.Long("flow")) is { } flow)
                        flow.Site = fact.Text("site");
                    break;
            }
        }
        catch (Exception)
        {
        }
        finally
        {
            CallSites.Replaying = false;
        }
    }

    /// <summary>Ends the replay as a report at the end of the recording would: each observer describes what it measured.</summary>
    public ReplayedPool Finish()
    {
        var figures = new ReportFigures { Opens = _opens };
        foreach (PoolObserver observer in _observers.All)
        {
            try
            {
                observer.Describe(figures);
            }
            catch (Exception)
            {
            }
        }

        return new ReplayedPool(Pool, Instance, Detectors, Detectors & Replayable, Facts, _log.Kept, figures);
    }

    private void OpenStarting(in RecordedFact fact)
    {
        OpenStart start = Start(fact);
        _clock.Now = start.Started;
        using WarmUpFlag warmUp = new(fact.Bool("warmUp"));
        foreach (PoolObserver observer in _observers.OpenStarting)
            observer.OnOpenStarting(start);
    }

    private void OpenCompleted(in RecordedFact fact)
    {
        _opens++;
        OpenStart start = Start(fact);
        var outcome = new OpenOutcome(TimeSpan.FromTicks(fact.Long("elapsedTicks")), fact.Long("physicalConnectsDuring"),
            fact.Double("createMsDuring"), fact.Bool("queued"), fact.Bool("othersQueued"));
        var open = new CompletedOpen(start, outcome, fact.Long("at"), fact.Bool("afterFirstWave"),
            TimeSpan.FromTicks(fact.Long("threadPoolDelayTicks")));
        _clock.Now = open.At;
        if (outcome.PhysicalConnectsDuring > 0)
            _answered.Completed(open.At); // as the process's telemetry did
        using WarmUpFlag warmUp = new(fact.Bool("warmUp"));
        foreach (PoolObserver observer in _observers.OpenCompleted)
            observer.OnOpenCompleted(open);
    }

    private void OpenFailed(in RecordedFact fact)
    {
        OpenStart start = Start(fact);
        _clock.Now = fact.Long("at");
        var error = new RecordedError(fact.Text("errorType"), fact.Text("errorMessage"));
        var timeout = (OpenTimeout)fact.Int("timeout");
        var failure = new OpenFailure(error, timeout, fact.Bool("cancelled"), fact.Bool("brokeWhileOpening"));
        LostConnect lost = _answered.Lost(start, failure, _clock);
        PoolExhaustedException? exhausted = null;
        if (fact.Bool("exhausted"))
        {
            // The process's explanation again, from the figures it gave: the idle count that gives its connecting count (a
            // trace from before version 2 of the fact has no parked count: none parked).
            int held = fact.Int("held"), parked = fact.Int("parked"), connecting = fact.Int("connecting");
            long? idle = _maxPoolSize is { } max ? max - held - parked - connecting : null;
            // The process wrote the hold's ticks / 10,000; TimeSpan.FromMilliseconds truncates ms * 10,000, which for some lengths
            // (20.0175 ms) is a hair under the whole tick count: rounded, the replay's figure is the process's to the tick.
            TimeSpan? longest = fact.Double("longestHeldMs") is >= 0 and var ms
                ? TimeSpan.FromTicks((long)Math.Round(ms * TimeSpan.TicksPerMillisecond))
                : null;
            exhausted = PoolExhaustion.Explain(
                error, timeout == OpenTimeout.None ? OpenTimeout.PoolWait : timeout, Pool, _maxPoolSize, held, parked, fact.Int("waiting"),
                idle, (longest, null), lost);
        }

        foreach (PoolObserver observer in _observers.OpenFailed)
            observer.OnOpenFailed(new FailedOpen(start, failure, exhausted, lost));
    }

    private void Acquired(in RecordedFact fact)
    {
        _clock.Now = fact.Long("at");
        string owner = fact.Text("owner");
        bool byDesign = fact.Bool("heldByDesign");
        HolderTable.Acquirer? where = fact.Text("site") is { Length: > 0 } site ? new HolderTable.Acquirer(site) : null;
        FlowState? flow = Flow(fact.Long("flow"));
        int hold = HolderTable.NoHold;
        if (fact.Field("hold") is not null) // an acquire recorded without its hold cannot be matched to its release
        {
            var key = new object();
            hold = _holders.Add(key, owner, byDesign, where, _clock.Now, flow);
            _held[fact.Int("hold")] = (key, hold);
        }

        foreach (PoolObserver observer in _observers.Acquired)
            observer.OnAcquired(new Acquire(_clock.Now, hold, owner, byDesign, where, flow));
    }

    private void Released(in RecordedFact fact)
    {
        _clock.Now = fact.Long("at");
        // The replay's own holder when it saw the acquire (its scans decide what was reported); the recorded one for a hold
        // taken before the recording began. Its kind is always the recorded one (0 in a trace from before version 2).
        HolderTable.Holder holder = _held.Remove(fact.Int("hold"), out (object Key, int Hold) held)
            && _holders.TryRemove(held.Key, held.Hold, out HolderTable.Holder replayed)
            ? replayed with { Kind = fact.Int("kind") }
            : new HolderTable.Holder(fact.Long("started"), fact.Text("owner"), null, fact.Bool("reported"), Flow(fact.Long("flow")),
                fact.Int("kind"));
        var release = new Release(holder, TimeSpan.FromTicks(fact.Long("heldTicks")), _clock.Now);
        foreach (PoolObserver observer in _observers.Released)
            observer.OnReleased(release);
    }

    private void CommandFailed(in RecordedFact fact)
    {
        _clock.Now = fact.Long("at");
        string? sql = fact.Text("sql") is { Length: > 0 } text ? text : null;
        int conflict = fact.Int("conflict");
        foreach (PoolObserver observer in _observers.CommandFailed)
        {
            if (observer is LockConflictDetector locks)
            {
                if (conflict >= 0)
                    locks.OnConflict((LockConflict)conflict, sql);
            }
            else
            {
                observer.OnCommandFailed(new CommandFailure(new RecordedError(fact.Text("errorType"), ""), sql));
            }
        }
    }

    private OpenStart Start(in RecordedFact fact) => new(
        fact.Long("started"), fact.Int("inUse"), fact.Int("demand"), fact.Long("physicalConnects"), fact.Double("createSeconds"),
        fact.Bool("async"), Flow(fact.Long("flow")), fact.Long("queuedEntries"), fact.Bool("firstWave"), fact.Bool("afterLoss"));

    /// <summary>
    /// <see cref="ColdStarts.InWarmUp"/> as the recorded open had it (a warm-up's opens are not judged), while the observers
    /// hear it; the replay's own value again once disposed.
    /// </summary>
    private readonly struct WarmUpFlag : IDisposable
    {
        private readonly bool _was;

        public WarmUpFlag(bool recorded)
        {
            _was = ColdStarts.InWarmUp.Value;
            ColdStarts.InWarmUp.Value = recorded;
        }

        public void Dispose() => ColdStarts.InWarmUp.Value = _was;
    }

    private FlowState? Flow(long id)
    {
        if (id == 0)
            return null;
        if (!_flows.TryGetValue(id, out FlowState? flow))
            _flows[id] = flow = new FlowState();
        return flow;
    }
}

/// <summary>What a replay of one pool found.</summary>
/// <param name="Pool">The pool's name.</param>
/// <param name="Instance">Which pool of that name in the process.</param>
/// <param name="Detectors">The detectors the process ran.</param>
/// <param name="Replayed">Those of them replayed.</param>
/// <param name="Facts">How many facts were replayed.</param>
/// <param name="Findings">The findings, in the order the detectors raised them (time, message, figures as in the process).</param>
/// <param name="Figures">What the observers measured, as a report at the end of the recording would give it.</param>
internal sealed record ReplayedPool(
    string Pool, int Instance, FindingKind Detectors, FindingKind Replayed, long Facts, IReadOnlyList<PoolFinding> Findings,
    ReportFigures Figures);
