using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>A cold start's (or reconnect wave's) finding: the cost to the requests first, then the cure, then what was measured.</summary>
internal static class ColdStartMessage
{
    /// <summary>
    /// Reports <paramref name="verdict"/> to <paramref name="log"/>; <paramref name="connects"/> says how its connects were counted.
    /// </summary>
    public static void Report(FindingLog log, in ColdWaveHolds verdict, ConnectCount connects)
    {
        ColdWave wave = verdict.Wave;
        double heldMs = verdict.MeanHeldMs;
        double requestMs = wave.MeanOpenMs + heldMs;
        double share = wave.MeanOpenMs / requestMs;
        CultureInfo c = CultureInfo.InvariantCulture;
        bool warm = verdict.WarmHolds > 0;
        double workMs = warm ? verdict.WarmHeldMs : heldMs;
        double slowdown = workMs > 0 ? requestMs / workMs : double.PositiveInfinity;
        string cost = string.Create(c, $"the first {wave.Opens} requests took {requestMs:0} ms on average ") +
                      (warm
                          ? string.Create(c, $"where the same work on the warm connections took {workMs:0} ms")
                          : string.Create(c, $"where their own work took {heldMs:0} ms")) +
                      (double.IsFinite(slowdown) && slowdown < 1000 ? string.Create(c, $" ({slowdown:0.0#}x)") : "") +
                      string.Create(c, $": opening was {share * 100:0} % of their time. ");
        string head = wave.AfterLoss
            ? string.Create(c, $"Reconnect wave on pool '{log.PoolName}' after connections were lost (a server restart or a failover): ") +
              cost +
              "Expected once per outage, and not a pool-size problem: every caller reconnected at once to a server that had just " +
              "come back; " +
              "where connects are this slow, a warm-up after recovery (db.WarmUpAsync) spares the first requests. "
            : string.Create(c, $"Cold start of pool '{log.PoolName}': ") + cost +
              string.Create(c, $"Warm the pool before traffic: await db.WarmUpAsync({wave.Connects}) at start-up ") +
              "(or services.AddOrseisWarmUp), and keep it warm with Min Pool Size; every new instance of the application pays this " +
              "on its first requests (a deploy, a scale-out, a restart). Its first burst found no warm connection: ";
        string measured =
            string.Create(c, $"{wave.Opens} open(s) made {wave.Connects} new physical connection(s) ") +
            string.Create(c, $"taking about {wave.ConnectMs:0.#} ms each ") +
            (connects == ConnectCount.ProviderMeter ? "(the provider's own connect time)" : "(the fastest open that made one)") +
            string.Create(c, $"; the opens took {wave.MeanOpenMs:0.#} ms on average (the slowest {wave.SlowestOpenMs:0.#} ms)") +
            string.Create(c, $"; over the wave's {wave.WaveMs:0} ms the process spent {wave.CompileMs:0} ms compiling code (its JIT), ") +
            string.Create(c, $"{wave.MeanOpenCompileMs:0} ms of an open's time ") +
            (double.IsNaN(wave.OpenersCompileMs)
                ? ""
                : string.Create(c, $"({ColdStartRule.OpenersShare(wave) * 100:0} % of it on the opening threads themselves) ")) +
            "and " +
            string.Create(c, $"{verdict.MeanHeldCompileMs:0} ms of a request's work on average, ") +
            string.Create(c, $"and the thread pool ran at most {wave.ThreadPoolDelayMs:0} ms late") +
            (wave.Activity is { } seen && !double.IsNaN(seen.IdleMs)
                ? string.Create(c, $"; the process used {seen.CpuMs:0} ms of CPU and sat idle, waiting on the server, ")
                  + string.Create(c, $"for {seen.IdleMs:0} ms (at most {seen.LongestIdleMs:0} ms at a stretch)")
                : "") +
            string.Create(c, $": net of the process's own start-up, ") +
            string.Create(c, $"the opens took {ColdStartRule.NetOpenMs(wave):0} ms, the work {ColdStartRule.NetHeldMs(verdict):0} ms") +
            (double.IsNaN(wave.LowConnectOpenMs)
                ? ""
                : string.Create(c, $"; a tenth of the connecting opens took {wave.LowConnectOpenMs:0} ms or less, ") +
                  string.Create(c, $"{wave.LowConnectNetMs:0} ms of it not the process's start-up (the server's connect ") +
                  string.Create(c, $"about {ColdStartRule.ServerConnectMs(wave):0} ms)")) +
            (double.IsNaN(wave.LowConnectBlockedMs)
                ? ""
                : string.Create(c, $"; a tenth of the connecting opens sat blocked (off a CPU, not waiting for one) ") +
                  string.Create(c, $"{wave.LowConnectBlockedMs:0} ms or less, {wave.LowConnectBlockedNetMs:0} ms of it net of the ") +
                  "opening threads' share of the process's compiling") +
            (warm ? string.Create(c, $"; {verdict.WarmHolds} later hold(s) on warm connections took {workMs:0.#} ms (median).") : ".");
        var figures = new Dictionary<string, double>
        {
            ["opens"] = wave.Opens,
            ["connectingOpens"] = wave.ConnectingOpens,
            ["physicalConnects"] = wave.Connects,
            ["connectMs"] = wave.ConnectMs,
            ["meanOpenMs"] = wave.MeanOpenMs,
            ["slowestOpenMs"] = wave.SlowestOpenMs,
            ["meanHeldMs"] = heldMs,
            ["openShare"] = share,
            ["afterLoss"] = wave.AfterLoss ? 1 : 0,
            ["compileMs"] = wave.CompileMs,
            ["threadPoolDelayMs"] = wave.ThreadPoolDelayMs,
            ["waveMs"] = wave.WaveMs,
            ["openCompileMs"] = wave.MeanOpenCompileMs,
            ["heldCompileMs"] = verdict.MeanHeldCompileMs,
            ["netOpenMs"] = ColdStartRule.NetOpenMs(wave),
            ["openersCompileShare"] = ColdStartRule.OpenersShare(wave),
            ["netHeldMs"] = ColdStartRule.NetHeldMs(verdict),
            ["warmHolds"] = verdict.WarmHolds,
            ["warmHeldMs"] = verdict.WarmHeldMs,
            ["workMs"] = ColdStartRule.WorkMs(verdict),
        };
        if (!double.IsNaN(wave.LowConnectOpenMs))
        {
            figures["lowConnectOpenMs"] = wave.LowConnectOpenMs;
            figures["lowConnectNetMs"] = wave.LowConnectNetMs;
            figures["serverConnectMs"] = ColdStartRule.ServerConnectMs(wave);
        }

        if (!double.IsNaN(wave.LowConnectBlockedMs))
        {
            figures["lowConnectBlockedMs"] = wave.LowConnectBlockedMs;
            figures["lowConnectBlockedNetMs"] = wave.LowConnectBlockedNetMs;
            figures["blockedServerMs"] = ColdStartRule.BlockedServerMs(wave);
        }

        if (wave.Activity is { } sampled && !double.IsNaN(sampled.IdleMs))
        {
            figures["processCpuMs"] = sampled.CpuMs;
            figures["idleMs"] = sampled.IdleMs;
            figures["longestIdleMs"] = sampled.LongestIdleMs;
        }

        log.Report(FindingKind.SlowOpen, head + measured, figures, null, rateLimited: true);
    }

    /// <summary>
    /// Reports a first burst's cold start through a late caller's open (<see cref="ColdStartRule.IsLateColdStart"/>): it took
    /// <paramref name="openMs"/>, its connects <paramref name="connectMs"/> each, with <paramref name="demand"/> callers
    /// wanting a connection when it began.
    /// </summary>
    public static void ReportLate(
        FindingLog log, in FirstBurst burst, double openMs, double connectMs, long connectsDuring, int demand, ConnectCount connects)
    {
        CultureInfo c = CultureInfo.InvariantCulture;
        double requestMs = openMs + burst.WorkMs;
        string message =
            string.Create(c, $"Cold start of pool '{log.PoolName}': a caller of its first burst, ") +
            "arriving after the first wave's connects, " +
            string.Create(c, $"took {requestMs:0} ms where the burst's own work takes {burst.WorkMs:0} ms") +
            (burst.WorkMs > 0 ? string.Create(c, $" ({requestMs / burst.WorkMs:0.0#}x)") : "") +
            string.Create(c, $": opening was {openMs / requestMs * 100:0} % of its time. ") +
            string.Create(c, $"Warm the pool before traffic: await db.WarmUpAsync({demand}) at start-up ") +
            "(or services.AddOrseisWarmUp), and keep it warm with Min Pool Size; every new instance of the application pays this " +
            "on its first requests (a deploy, a scale-out, a restart). " +
            string.Create(c, $"The open took {openMs:0.#} ms and made new physical connections, {connectMs:0.#} ms each ") +
            (connects == ConnectCount.ProviderMeter ? "(the provider's own connect time" : "(the fastest open that made one") +
            string.Create(c, $"; {connectsDuring} made during it, {demand} caller(s) wanting a connection when it began); ") +
            string.Create(c, $"the first wave's {burst.WaveConnects} connect(s) were slow as well, a tenth of its opens taking ") +
            string.Create(c, $"{burst.LowOpenMs:0.#} ms or more, but not named then (net of the process's start-up, they read under the ") +
            "floor or the wave's share of the requests' time did): past the start-up, this caller waited on the server's connect.";
        log.Report(FindingKind.SlowOpen, message,
            new Dictionary<string, double>
            {
                ["openMs"] = openMs,
                ["connectMs"] = connectMs,
                ["physicalConnects"] = connectsDuring,
                ["demand"] = demand,
                ["waveLowOpenMs"] = burst.LowOpenMs,
                ["waveConnects"] = burst.WaveConnects,
                ["workMs"] = burst.WorkMs,
                ["lateCaller"] = 1,
            },
            null, rateLimited: true);
    }
    /// <summary>
    /// Reports a first wave while its opens still wait for their connects (<see cref="ColdStarts"/>' watch): the wait
    /// first, then the cure, then the cause the wave's shape points to: connects lost at the server's listen queue when
    /// the server answered the wave's other connects, connects that take seconds when it answered none. Once per watched
    /// wave; rate-limited as the pool's other cold-start findings (so a late caller's is not a second one), but for an
    /// update of the wave's verdict (its crowd's opens still waiting after it), which the verdict's own report would drop.
    /// Returns whether it was reported.
    /// </summary>
    public static bool ReportWaiting(FindingLog log, in WaitingWave wave)
    {
        CultureInfo c = CultureInfo.InvariantCulture;
        string head = wave.AfterLoss
            ? string.Create(c, $"Reconnect wave on pool '{log.PoolName}' after connections were lost: ")
            : string.Create(c, $"Cold start of pool '{log.PoolName}': ");
        string message;
        if (wave.Connected > 0)
        {
            message = head +
                string.Create(c, $"{wave.Waiting} of the {wave.Begun} opens of its first burst have waited ") +
                string.Create(c, $"{wave.WaitedMs / 1000:0.0} s for a new connection and are still waiting, while {wave.Connected} ") +
                string.Create(c, $"connected within {wave.ConnectedWithinMs / 1000:0.0} s. Let the first burst's connects reach the ") +
                string.Create(c, $"server a few at a time: await db.WarmUpAsync({wave.Begun}) at start-up ") +
                "(or services.AddOrseisWarmUp; it connects eight at a time), make the first burst smaller, or let the server queue more " +
                "connects at once (MariaDB's and MySQL's back_log, PostgreSQL's listen backlog, the kernel's net.core.somaxconn). " +
                "The server answered the other connects at once, so these were most likely lost at its listen queue: " +
                string.Create(c, $"{wave.Begun} ") +
                "opens connected together, more than it queues, and a client whose connect was dropped there waits for the server's " +
                "first packet until its Connect Timeout (MySqlConnector's default is 15 s; then each such open fails). " +
                (wave.Update
                    ? "An update of this burst's cold start, named when its first wave's opens ended: these opens are its late callers."
                    : "Named while they wait; this wave is not reported again when they end.");
        }
        else
        {
            message = head +
                string.Create(c, $"the {wave.Waiting} opens of its first burst have waited {wave.WaitedMs / 1000:0.0} s ") +
                "for new connections " +
                "and are still waiting; none has connected yet. " +
                string.Create(c, $"Warm the pool before traffic: await db.WarmUpAsync({wave.Begun}) at start-up ") +
                "(or services.AddOrseisWarmUp), and keep it warm with Min Pool Size; every new instance of the application pays this " +
                "on its first requests (a deploy, a scale-out, a restart). New connections take seconds on this server, or it does " +
                "not answer them: a server far away, a DNS or TLS stall, slow authentication or init_connect, a server overloaded or " +
                "paused; if it never answers, the provider's Connect Timeout ends these opens and a ServerUnavailable finding " +
                "follows. Named while they wait; this wave is not reported again when they end.";
        }

        return log.Report(FindingKind.SlowOpen, message,
            new Dictionary<string, double>
            {
                ["waiting"] = wave.Waiting,
                ["opens"] = wave.Begun,
                ["connected"] = wave.Connected,
                ["completed"] = wave.Completed,
                ["failed"] = wave.Failed,
                ["waitedMs"] = wave.WaitedMs,
                ["connectedWithinMs"] = wave.ConnectedWithinMs,
                ["afterLoss"] = wave.AfterLoss ? 1 : 0,
                ["whileWaiting"] = 1,
                ["update"] = wave.Update ? 1 : 0,
            },
            null, rateLimited: !wave.Update);
    }
}
