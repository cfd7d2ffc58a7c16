using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Slow opens, by cause. An open that queued for the pool, or ran while others queued, is the saturation detector's,
/// never this one's. Of the rest: an open slower than <see cref="DiagnosticsOptions.SlowOpenFloor"/> during which the
/// provider made physical connections that themselves took longer than the floor is a <b>cold pool</b> (its figures are
/// the provider's own connect times, or, where only connection ids mark connects, the fastest connect made while the
/// open ran); warm opens that stay slow (above the floor and <see cref="DiagnosticsOptions.SlowOpenFactor"/> times the
/// usual, at least five of them over at least a second with no fast open between) are a <b>slow server or network</b>.
/// A stall (a GC pause, a descheduled process) slows every open in flight at once, for less than that, and is neither,
/// nor are a first wave's connects (<see cref="ConnectWaves"/>: the process's one-time costs, or every caller
/// reconnecting at once after a server restart), nor opens that ran while a first wave's opens were still in flight
/// (its crowd: <see cref="ColdStarts"/> judges the wave as one), nor a first burst's late callers (judged with it:
/// <see cref="ColdStartRule.IsLateColdStart"/>), nor opens while the thread pool ran work late, by its starvation
/// threshold or by half the open's own time (async opens wait for it, and some providers' synchronous opens do too:
/// MySql.Data connects through tasks it blocks on). The usual open time is learned from warm opens only, so cold
/// connects never become the baseline, and a warm-up's opens (<see cref="ColdStarts.InWarmUp"/>), which make new
/// connections on purpose, are not judged. <paramref name="providerPool"/>: the provider's idle count, for the figures.
/// </summary>
internal sealed class SlowOpenDetector(FindingLog log, ConnectCount connects, ProviderPoolStats? providerPool = null) : PoolObserver
{
    private readonly bool _providerCountsConnects = connects != ConnectCount.None;

    /// <summary>How this pool's physical connects are known.</summary>
    public ConnectCount Connects => connects;

    private const int Recent = 5;
    private const double Weight = 0.1;
    private static readonly TimeSpan Sustained = TimeSpan.FromSeconds(1);
    private const int KeptConnects = 16;

    /// <summary>Connects made while one open ran from which their number is named as a cause of their time.</summary>
    private const int CrowdedConnects = 8;
    private readonly (long At, double Ms)[] _connects = new (long, double)[KeptConnects];
    private int _connectsNext;
    private readonly Lock _lock = new();
    private readonly double[] _recent = new double[Recent];
    private int _recentNext; // wraps after 2^32 opens: read as unsigned
    private int _recentFull;
    private int _slowInRow;
    private long _slowSince;
    private double _usualMs;

    /// <summary>The moving average of warm (pool-hit) opens, in milliseconds; 0 until one was seen.</summary>
    public double UsualMs => Volatile.Read(ref _usualMs);

    public override HeardFacts Hears => HeardFacts.OpenCompleted;

    public override void OnOpenCompleted(in CompletedOpen open)
    {
        // A warm-up's opens make new connections on purpose (read only for an open slow enough to judge).
        if (!(open.Outcome.Elapsed > log.Options.SlowOpenFloor && ColdStarts.InWarmUp.Value))
            OnOpenCompleted(open.Start, open.Outcome, providerPool?.Idle, open.AfterFirstWave, open.ThreadPoolDelay);
    }

    public override void Describe(ReportFigures figures)
    {
        double usual = UsualMs;
        if (usual > 0)
            figures.UsualOpenTime = TimeSpan.FromMilliseconds(usual);
    }

    /// <summary>
    /// Judges one completed open. <paramref name="afterFirstWave"/>: it began after the first physical connect of the
    /// pool's current wave completed (<see cref="ConnectWaves"/>; a first wave is never judged);
    /// <paramref name="threadPoolDelay"/>: how late the thread pool ran work meanwhile (an async open waits that long for
    /// its continuations, and so does a synchronous open of a provider that blocks on tasks inside it: past the starvation
    /// threshold, the thread pool is to blame, not the database).
    /// </summary>
    public void OnOpenCompleted(in OpenStart start, in OpenOutcome outcome, long? idleAtEnd, bool afterFirstWave, TimeSpan threadPoolDelay)
    {
        if (outcome.Queued || outcome.OthersQueued)
            return; // it waited for the pool (or may have: others queued meanwhile), which is Saturation's to judge
        double ms = outcome.Elapsed.TotalMilliseconds;
        if (threadPoolDelay >= log.Options.ThreadPoolDelayThreshold || threadPoolDelay.TotalMilliseconds * 2 >= ms)
            return; // the thread pool was late by the threshold, or by half this open's time: it, not the server, explains it
        double floorMs = log.Options.SlowOpenFloor.TotalMilliseconds;
        if (_providerCountsConnects && outcome.PhysicalConnectsDuring > 0)
        {
            double connectMs = connects == ConnectCount.ProviderMeter ? outcome.MeanCreateMs : FastestConnectDuring(start.Started, ms);
            if (afterFirstWave && ms > floorMs && connectMs > floorMs && !InWaveCrowd(start))
            {
                ColdStarts.JudgeBefore(log); // the pool's first wave speaks first, if its verdict still waits
                if (ColdStarts.LateInBurst(log, start.Started) is { } burst)
                {
                    // A late caller of the first burst: judged with it, never as a cold pool.
                    if (ColdStartRule.IsLateColdStart(burst, ms, log.Options))
                        ColdStartMessage.ReportLate(log, burst, ms, connectMs, outcome.PhysicalConnectsDuring, start.Demand, connects);
                }
                else
                {
                    ReportCold(start, outcome, connectMs, idleAtEnd);
                }
            }

            return;
        }

        Remember(ms);
        if (ms <= floorMs)
        {
            // The usual case, every warm open: no lock. A fast open ends any run of slow ones.
            Learn(ms);
            Volatile.Write(ref _slowInRow, 0);
            return;
        }

        double usual = Volatile.Read(ref _usualMs), median;
        bool sustained;
        if (usual > 0 && ms <= log.Options.SlowOpenFactor * usual)
            return;
        lock (_lock)
        {
            // Atomic, as a warm open resets it without the lock: a reset is never lost to an increment.
            int inRow = Interlocked.Increment(ref _slowInRow);
            if (inRow == 1)
                _slowSince = start.Started;
            median = Volatile.Read(ref _recentFull) != 0 ? Median(_recent) : 0;
            sustained = inRow >= Recent && log.Time.GetElapsedTime(_slowSince) >= Sustained;
        }

        if (sustained)
            ReportSustained(ms, median, usual);
    }

    /// <summary>
    /// Whether the open ran while a first wave's opens were still in flight (<see cref="ColdStarts.Overlaps"/>): one of
    /// the wave's crowd, whose connects, counted by the provider's meter while it ran, are mostly the wave's (a fresh
    /// process's 128 loopback connects at once took 1.1 to 1.3 s each, counted during later opens of 0.25 to 0.47 s). The
    /// wave is judged as one, net of the process's start-up. Read only for a slow open that connected.
    /// </summary>
    private bool InWaveCrowd(in OpenStart start) => ColdStarts.Overlaps(log, start.Started);

    /// <summary>
    /// Where only a new server connection id marks a connect, the open's time is the connect's only if it ran alone:
    /// callers connecting at once (a burst, every caller reconnecting after a server restart) wait behind each other inside
    /// the provider. The fastest of the opens that made a connection and completed while this one ran (the last
    /// <see cref="KeptConnects"/>), this one included, is what a connect costs now.
    /// </summary>
    private double FastestConnectDuring(long started, double ms)
    {
        long now = log.Time.GetTimestamp();
        lock (_lock)
        {
            _connects[_connectsNext] = (now, ms);
            _connectsNext = (_connectsNext + 1) % KeptConnects;
            double fastest = ms;
            foreach ((long at, double connectMs) in _connects)
            {
                if (at > started && connectMs < fastest)
                    fastest = connectMs;
            }

            return fastest;
        }
    }

    private void ReportCold(in OpenStart start, in OpenOutcome outcome, double connectMs, long? idle)
    {
        CultureInfo c = CultureInfo.InvariantCulture;
        log.Report(FindingKind.SlowOpen,
            string.Create(c, $"Cold pool '{log.PoolName}': an open took {outcome.Elapsed.TotalMilliseconds:0.###} ms because the pool had no idle connection to give ") +
            (connects == ConnectCount.ProviderMeter
                ? string.Create(c, $"and the provider made new physical connections, {outcome.MeanCreateMs:0.###} ms each (the provider's own connect time; ")
                : "and it made a new physical connection (a server connection id not seen before; " +
                  string.Create(c, $"the fastest connect made while it ran took {connectMs:0.###} ms; ")) +
            string.Create(c, $"{outcome.PhysicalConnectsDuring} made during this open, {start.Demand} caller(s) wanting a connection when it began, none queued for a full pool). ") +
            Cause(outcome.PhysicalConnectsDuring),
            new Dictionary<string, double>
            {
                ["openMs"] = outcome.Elapsed.TotalMilliseconds,
                ["connectMs"] = connectMs,
                ["physicalConnects"] = outcome.PhysicalConnectsDuring,
                ["demand"] = start.Demand,
                ["idle"] = idle ?? -1,
            },
            null, rateLimited: true);
    }

    /// <summary>
    /// Why new connections are slow, and the cure. Past <see cref="CrowdedConnects"/> made while one open ran, the crowd
    /// itself is a cause: in the capacity study a pool growing to 256 under load made 54 connects during one open, 202 ms
    /// each, against a few ms for one alone, the server and the CPU handling every handshake at once.
    /// </summary>
    private static string Cause(long connectsDuring) => connectsDuring >= CrowdedConnects
        ? string.Create(CultureInfo.InvariantCulture, $"With {connectsDuring} connects at once, part of each one's time is the others': ") +
          "the server (and the CPU, where it shares the machine) handles every handshake together. New connections are slow here " +
          "(that crowd, or authentication, init_connect, TLS, DNS or the network): open them before the burst with WarmUpAsync or " +
          "Min Pool Size, and keep them with a longer Connection Idle Timeout / Connection Lifetime."
        : "New connections are slow on this server (authentication, init_connect, TLS, DNS or the network): keep connections warm with " +
          "Min Pool Size, a longer Connection Idle Timeout / Connection Lifetime, or open a few at startup.";

    private void ReportSustained(double ms, double median, double usual)
    {
        CultureInfo c = CultureInfo.InvariantCulture;
        string cause = _providerCountsConnects
            ? "No new physical connection was made and no caller queued for the pool, so the pool is warm: the server or the network is slow to answer (the provider's reset round trip or liveness check)."
            : "No caller queued for the pool; this provider publishes no physical-connect count, so a cold pool (new connections) cannot be told from a slow server here.";
        log.Report(FindingKind.SlowOpen,
            string.Create(c, $"Slow opens on pool '{log.PoolName}': the last {Recent} opens took {median:0.###} ms (median; this one {ms:0.###} ms), ") +
            (usual > 0 ? string.Create(c, $"against a usual {usual:0.###} ms. ") : "and no fast open was seen yet. ") + cause,
            new Dictionary<string, double> { ["openMs"] = ms, ["medianMs"] = median, ["usualMs"] = usual },
            null, rateLimited: true);
    }

    /// <summary>Keeps <paramref name="ms"/> among the last <see cref="Recent"/> open times (racing opens may mix slots).</summary>
    private void Remember(double ms)
    {
        uint next = (uint)Interlocked.Increment(ref _recentNext) - 1;
        Volatile.Write(ref _recent[next % Recent], ms);
        if (next >= Recent - 1 && Volatile.Read(ref _recentFull) == 0)
            Volatile.Write(ref _recentFull, 1);
    }

    /// <summary>Moves the usual (warm) open time towards <paramref name="ms"/>: the first (usual still 0) sets it.</summary>
    private void Learn(double ms)
    {
        double seen = Volatile.Read(ref _usualMs);
        while (true)
        {
            double next = seen == 0 ? ms : (Weight * ms) + ((1 - Weight) * seen);
            double was = Interlocked.CompareExchange(ref _usualMs, next, seen);
            if (was.Equals(seen))
                return;
            seen = was;
        }
    }

    private static double Median(double[] values)
    {
        double[] sorted = new double[values.Length];
        for (int i = 0; i < values.Length; i++)
            sorted[i] = Volatile.Read(ref values[i]); // written without the lock: whole doubles, also on 32-bit
        Array.Sort(sorted);
        return sorted[sorted.Length / 2];
    }
}

/// <summary>How the pool's physical connects are known.</summary>
internal enum ConnectCount
{
    /// <summary>Not at all: a cold pool cannot be told from a slow server.</summary>
    None,

    /// <summary>The provider's meter counts and times them (MySqlConnector, Npgsql).</summary>
    ProviderMeter,

    /// <summary>A server-side connection id not seen before marks one (MySql.Data, SqlClient); its time is the open's.</summary>
    ConnectionId,
}
