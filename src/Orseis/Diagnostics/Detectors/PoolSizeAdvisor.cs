namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Pool-size advice by Little's law, from figures measured on this load: the throughput (releases per second between
/// the first acquire and the last release) times every moment a physical connection is taken per release is how many
/// connections the load keeps busy. A release's connection was taken for its hold and, before it, inside Open: the
/// provider's part (MySqlConnector's reset round trip; next to nothing for Npgsql, which sends its reset with the next
/// statement), measured as the time of the opens that neither waited for the pool nor connected. Both are means, as
/// Little's law wants (medians left out the tail of a loaded machine's holds: following their advice kept 0.70 of the
/// throughput in the sweep's long-statement load). The advice is that, two spare connections per square root of it
/// (<see cref="Sized"/>), and one.
/// When callers really queued, the demand they showed (held plus inside Open, as each arrived) is a floor: from a pool
/// callers queue on, the throughput measured is the pool's, not the load's, so only the size at which none queues is
/// sure not to pass less (issue 45: Little's law on the hold alone advised 2 for a pool of 16 and lost a third of the
/// throughput; 4x larger pools passed 4 to 30 % more on loads whose connections looked held longer than they need).
/// A finding ("raise") is made only when the pool held the callers up (while they queued, releases came as fast as Max
/// Pool Size connections at the uncontended hold can give them, <see cref="PoolBoundShare"/>); when releases came slower,
/// the report's line says the connections were held longer than they need: with the CPUs busy meanwhile
/// (<see cref="CpuBoundShare"/>, <see cref="PoolSizeCpu"/>) the CPU is the limit and the advice is the current size, for
/// more connections add no CPU (or the callers, where the pool is already half of them: <see cref="NoQueue"/>);
/// otherwise a larger pool may pass little more and the advice is the callers' demand. The uncontended hold is each
/// kind of hold's 25th percentile, averaged over the releases: a kind is the statement that began the hold
/// (<see cref="HoldKinds"/>). "Lower" is only ever a line of the report. No advice at all when the thread pool starved
/// while the load ran: the throughput then measured the threads, not the load (the cold-start study's bursts read "10
/// would do" for 130 callers holding connections 5 s each). The advice is worked out while the load runs
/// (<see cref="Check"/>), so a finding comes within a quarter second of the evidence, and whenever a report is made.
/// As an observer it keeps what the advice is made from (every timed hold, the time of opens that did not wait, and the
/// demand each caller met as it entered Open while a detector is on) and writes the advice into every report; findings
/// only when <paramref name="reportsFindings"/> (the PoolSize detector is on). <paramref name="cpu"/>: where the CPUs'
/// busy share comes from (a test's readings; the process's and machine's otherwise). <paramref name="holders"/>: the
/// pool's holds under way, read when the advice is worked out while callers queue (<see cref="HeldNow"/>); without it
/// (a test of the released holds alone) none is counted.
/// </summary>
internal sealed partial class PoolSizeAdvisor(
    FindingLog log, int? maxPoolSize, bool reportsFindings = false, PoolSizeCpu? cpu = null, HolderTable? holders = null)
    : PoolObserver
{
    private const double HoldQuantile = 0.25;

    /// <summary>Opens that neither waited nor connected needed before their own time prices the provider's part.</summary>
    private const int MinOpensTaken = 10;

    /// <summary>The fewest queued opens that make a pool one callers queued on (and at least 1 % of the opens).</summary>
    private const int MinQueuedOpens = 5;

    /// <summary>The share of callers whose demand as they arrived a roomy pool's advice covers (<see cref="Demand"/>).</summary>
    private const double DemandQuantile = 0.95;

    /// <summary>How often the advice is worked out while the load runs (<see cref="Check"/>).</summary>
    internal static readonly TimeSpan CheckEvery = TimeSpan.FromMilliseconds(250);

    private readonly HoldTimes?[] _byKind = new HoldTimes?[HoldKinds.Max + 1];
    private readonly long[] _queuedByKind = new long[HoldKinds.Max + 1];

    // How long opens that neither waited for the pool nor connected took: the provider's time inside Open with a physical
    // connection taken (MySqlConnector's reset round trip; next to nothing for Npgsql, which sends its reset with the next
    // statement).
    private readonly HoldTimes _opensTaken = new();

    // The demand each caller met as it entered Open (connections held plus callers inside Open), one microsecond per
    // connection wanted: its 95th percentile is what a pool needs for all but 5 % of callers never to queue (a warm-up burst opening a
    // pool's worth of connections at once is one or two per cent of the opens of a few seconds' load).
    private readonly HoldTimes _demands = new();
    private long _demandSum;
    private long _demandSamples;

    // The most callers that ever wanted a connection at once (the largest demand an open met), exact: a queued pool is
    // never advised more (a connection past them is never taken).
    private long _demandMost;

    // Callers inside Open that entered with the pool oversubscribed, since when the pool has held them up (0 while it
    // was still making its connections: see OnOpenStarting), and the time that added up to before. With the releases
    // made meanwhile (_queuedByKind, summed): the pool's throughput while callers queued.
    private int _queuing;
    private long _queuingSince;
    private long _queuedTicks;

    // Opens that queued and waited at least QueueWaitFloor (as the saturation detector counts them), and when a release
    // next looks at the advice while the load runs (see Check).
    private long _queuedOpens;
    private long _nextCheck;

    // The time the releases made while callers queued had held their connections (ticks), summed: with their count, their
    // mean hold, which says how much of the pool's time went inside holds and how much between them (see Advise's gap).
    private long _queuedHeldTicks;

    // How busy the CPUs were while callers queued: read at each check and report (see PoolSizeCpu). Made with the advisor
    // while a detector is on (its first reading is the baseline, "since this was made"). With none, at the first report: no
    // observer hears an open then, so no caller is seen to queue and the advice never uses the CPUs (only a queue's advice
    // does), and a new Database neither reads /proc/stat nor compiles the code that does (issue 44's cold start).
    private PoolSizeCpu? _cpu = cpu ?? (log.Options.Detectors != FindingKind.None ? new PoolSizeCpu(log.Time) : null);

    /// <summary>Whether the CPU readings are made yet (tests: with no detector on, not before the first report).</summary>
    internal bool CpuMade => Volatile.Read(ref _cpu) is not null;

    private PoolSizeCpu Cpu => Volatile.Read(ref _cpu) ?? MakeCpu();

    private PoolSizeCpu MakeCpu()
    {
        var made = new PoolSizeCpu(log.Time);
        return Interlocked.CompareExchange(ref _cpu, made, null) ?? made;
    }

    public override HeardFacts Hears => HeardFacts.OpenStarting | HeardFacts.OpenCompleted | HeardFacts.OpenFailed | HeardFacts.Released;

    /// <summary>
    /// A caller that queues with every connection held starts the clock at once: it waits for a release. One that queues
    /// while connections are still being made (a cold pool, a burst that grows it) waits for connects, not for holds: the
    /// clock starts when the first connection is handed out, so a slow connect does not read as connections held too long.
    /// </summary>
    public override void OnOpenStarting(in OpenStart start)
    {
        Interlocked.Add(ref _demandSum, start.Demand);
        Interlocked.Increment(ref _demandSamples);
        _demands.RecordMicroseconds(start.Demand);
        if (start.Demand > Volatile.Read(ref _demandMost))
            Peaks.Raise(ref _demandMost, start.Demand);
        if (Counts(start) && Interlocked.Increment(ref _queuing) == 1)
            Volatile.Write(ref _queuingSince, start.InUse >= maxPoolSize ? start.Started : 0);
    }

    public override void OnOpenCompleted(in CompletedOpen open)
    {
        if (open.Outcome is { Warm: true, OthersQueued: false })
            _opensTaken.Record(open.Outcome.Elapsed);
        else if (open.Outcome.Queued && open.Outcome.Elapsed >= log.Options.QueueWaitFloor)
            Interlocked.Increment(ref _queuedOpens);
        if (Volatile.Read(ref _queuing) > 0)
            Interlocked.CompareExchange(ref _queuingSince, open.At, 0);
        LeftQueue(open.Start, open.At);
    }

    public override void OnOpenFailed(in FailedOpen open) => LeftQueue(open.Start, log.Time.GetTimestamp());

    public override void OnReleased(in Release release)
    {
        int kind = release.Holder.Kind is >= 0 and <= HoldKinds.Max ? release.Holder.Kind : 0;
        if (Volatile.Read(ref _queuing) > 0 && Volatile.Read(ref _queuingSince) != 0)
        {
            Interlocked.Increment(ref _queuedByKind[kind]);
            Interlocked.Add(ref _queuedHeldTicks, release.Held.Ticks);
        }
        HoldTimes ofKind = Volatile.Read(ref _byKind[kind]) ?? OfKind(kind);
        ofKind.Record(release.Holder.Started, release.At, release.Held);
        // Only a raise is reported while the load runs, and a raise needs queued opens: a pool nobody queued on is never
        // worked out on its releases (on a steady load the check would cost every 250 ms for nothing).
        if (Interlocked.Read(ref _queuedOpens) >= MinQueuedOpens && release.At >= Volatile.Read(ref _nextCheck))
            Check(release.At);
    }

    /// <summary>
    /// The advice while the load runs, not only when a report is made: at most every <see cref="CheckEvery"/>, the release
    /// that comes due works it out and reports the finding if there is one (a raise), from the opens and queued opens this
    /// advisor counted itself. Not while the thread pool starves (a ThreadPoolStarvation finding was made): the report's
    /// advice, which knows when, decides then.
    /// </summary>
    private void Check(long now)
    {
        long due = Volatile.Read(ref _nextCheck);
        long next = now + (long)(CheckEvery.TotalSeconds * log.Time.TimestampFrequency);
        if (Interlocked.CompareExchange(ref _nextCheck, next, due) != due || due == 0)
            return; // another release checks; the first release only sets the clock
        try
        {
            Cpu.Sample(queuing: Volatile.Read(ref _queuing) > 0);
            if (!reportsFindings)
                return;
            if (log.Counts().TryGetValue(FindingKind.ThreadPoolStarvation, out long starved) && starved > 0)
                return;
            AdviseNow(HoldTimes.Combined(_byKind), Interlocked.Read(ref _queuedOpens), Interlocked.Read(ref _demandSamples),
                report: true, lastStarved: 0);
        }
        catch (Exception)
        {
        }
    }

    /// <summary>The hold times of <paramref name="kind"/>, made on its first release.</summary>
    private HoldTimes OfKind(int kind) => Interlocked.CompareExchange(ref _byKind[kind], new HoldTimes(), null) ?? _byKind[kind]!;

    /// <summary>
    /// The uncontended hold of the whole load and of the releases made while callers queued: each kind's 25th percentile,
    /// averaged over that kind's releases (of the whole load, or made while callers queued); null where none was made.
    /// </summary>
    private (TimeSpan? All, TimeSpan? WhileQueued) ByKind(double quantile)
    {
        double all = 0, queued = 0;
        long releases = 0, queuedReleases = 0;
        for (int kind = 0; kind <= HoldKinds.Max; kind++)
        {
            if (Volatile.Read(ref _byKind[kind]) is not { } holds || holds.Percentile(quantile) is not { } hold)
                continue;
            long count = holds.Count, whileQueued = Interlocked.Read(ref _queuedByKind[kind]);
            all += (double)count * hold.Ticks;
            releases += count;
            queued += (double)whileQueued * hold.Ticks;
            queuedReleases += whileQueued;
        }

        return (releases == 0 ? null : TimeSpan.FromTicks((long)(all / releases)),
            queuedReleases == 0 ? null : TimeSpan.FromTicks((long)(queued / queuedReleases)));
    }

    private bool Counts(in OpenStart start) => start.Started != 0 && start.Queued(maxPoolSize);

    private void LeftQueue(in OpenStart start, long at)
    {
        if (Counts(start) && Interlocked.Decrement(ref _queuing) == 0 && Volatile.Read(ref _queuingSince) is var since and not 0)
            Interlocked.Add(ref _queuedTicks, Math.Max(0, at - since));
    }

    /// <summary>
    /// The connections held right now, counted in the time they have been held since callers began queueing (the stretch
    /// going on now): connection-seconds a second of the time callers queued (<see cref="QueuedRate"/>'s), so that it adds
    /// to the releases' part of the pool's busy share. A check early in a queue sees the connections taken by long holds
    /// only so: released, they would be counted; under way, the releases are all short ones (issue 45's time to detect:
    /// requests of three lookups then 0.5 s of work on a pool of 5 read 0.21 to 0.73 busy for 1.5 s, then 0.8 to 0.96).
    /// Read from the pool's holder table when the advice is worked out: every hold under way, a scope's calls on its parked
    /// connection included (a count kept by opens and releases lost one for every call a scope reused its connection for,
    /// whose releases come without an open, and read nothing under scopes). Zero when callers do not queue now or nothing
    /// can be said.
    /// </summary>
    private double HeldNow()
    {
        long since = Volatile.Read(ref _queuingSince);
        if (Volatile.Read(ref _queuing) <= 0 || since == 0)
            return 0;
        if (holders is null)
            return 0;
        long now = log.Time.GetTimestamp();
        (int count, long heldTicks) = holders.UnderWay(now);
        if (count == 0)
            return 0;
        double seconds = (double)heldTicks / log.Time.TimestampFrequency;
        double stretch = log.Time.GetElapsedTime(since, now).TotalSeconds;
        double queued = (double)Interlocked.Read(ref _queuedTicks) / log.Time.TimestampFrequency + stretch;
        return queued <= 0 ? 0 : Math.Clamp(seconds, 0, count * stretch) / queued;
    }

    /// <summary>Releases per second while callers queued on a pool holding them up; null when too few were seen to say.</summary>
    private double? QueuedRate()
    {
        long releases = QueuedReleases();
        long ticks = Interlocked.Read(ref _queuedTicks);
        if (Volatile.Read(ref _queuing) > 0 && Volatile.Read(ref _queuingSince) is var since and not 0)
            ticks += Math.Max(0, log.Time.GetTimestamp() - since);
        double seconds = (double)ticks / log.Time.TimestampFrequency;
        return releases >= 10 && seconds > 0 ? releases / seconds : null;
    }

    /// <summary>The mean hold of the releases made while callers queued; null before any.</summary>
    private TimeSpan? QueuedMeanHold() =>
        QueuedReleases() is var releases and not 0 ? TimeSpan.FromTicks(Interlocked.Read(ref _queuedHeldTicks) / releases) : null;

    /// <summary>The releases made while callers queued, of every kind.</summary>
    private long QueuedReleases()
    {
        long releases = 0;
        for (int kind = 0; kind <= HoldKinds.Max; kind++)
            releases += Interlocked.Read(ref _queuedByKind[kind]);
        return releases;
    }

    public override void Describe(ReportFigures figures)
    {
        HoldTimes holds = HoldTimes.Combined(_byKind);
        Cpu.Sample(queuing: Volatile.Read(ref _queuing) > 0);
        Advice? advice = AdviseNow(holds, figures.QueuedOpens, figures.Opens, reportsFindings, figures.LastStarved);
        figures.MedianHoldTime = holds.Percentile(0.5);
        figures.MeanInUse = advice?.Busy;
        figures.RecommendedMaxPoolSize = advice?.Recommended;
        figures.PoolSizeAdvice = advice is null ? null : Line(advice);
    }

    /// <summary>
    /// The advice from what this advisor measured so far (<paramref name="holds"/>: every kind's, combined), as a report
    /// and the on-load <see cref="Check"/> both ask for it.
    /// </summary>
    private Advice? AdviseNow(HoldTimes holds, long queuedOpens, long opens, bool report, long lastStarved)
    {
        long samples = Interlocked.Read(ref _demandSamples);
        double meanDemand = samples == 0 ? 0 : (double)Interlocked.Read(ref _demandSum) / samples;
        (TimeSpan? uncontended, TimeSpan? whileQueued) = ByKind(HoldQuantile);
        double? rate = QueuedRate();
        TimeSpan? cpuPerRelease = rate > 0 && Cpu.ProcessCoresQueued() is { } cores ? TimeSpan.FromSeconds(cores / rate.Value) : null;
        return Advise(holds, meanDemand, queuedOpens, opens, report, lastStarved, rate,
            uncontended, whileQueued, InOpen(HoldQuantile), holds.Mean(), InOpen(null), Demand(DemandQuantile), Cpu.BusyShare(),
            HeldNow(), cpuPerRelease, Need(), QueuedMeanHold());
    }

    /// <summary>
    /// The provider's time inside Open with a physical connection taken, per open, at <paramref name="quantile"/> (the
    /// mean when null): of the opens that neither waited for the pool nor connected, once <see cref="MinOpensTaken"/> were
    /// seen. Unknown (zero, <see cref="OpenTime.Measured"/> false) in a pool oversubscribed from its first opens on: every
    /// open's time was mostly its wait. Only a pool that queued callers is left without it, and that one is advised at
    /// least the demand its callers showed.
    /// </summary>
    private OpenTime InOpen(double? quantile) =>
        _opensTaken.Count >= MinOpensTaken && (quantile is { } q ? _opensTaken.Percentile(q) : _opensTaken.Mean()) is { } measured
            ? new OpenTime(measured, Measured: true)
            : default;

    /// <summary>The most callers that wanted a connection at once; null before any open was heard.</summary>
    private int? DemandMost => Volatile.Read(ref _demandMost) is > 0 and var most ? (int)most : null;

    /// <summary>
    /// The demand <paramref name="quantile"/> of callers met as they entered Open, at most (the top of its bucket); null
    /// before any. At 1, the most connections callers ever took at once, or a little more.
    /// </summary>
    private double? Demand(double quantile) =>
        _demands.Percentile(quantile) is { } high
            ? Math.Floor(high.TotalMicroseconds * Math.Pow(2, 1.0 / 16) + 1e-9) // its bucket's top
            : null;
}
