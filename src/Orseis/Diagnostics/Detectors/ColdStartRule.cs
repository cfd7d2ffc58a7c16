namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Whether a first wave of connects, with its holds back, is a cold start worth a finding: what the server's slow
/// connects cost the requests, net of what a fresh process's own start-up (its JIT compiling the code they run) cost them.
/// <list type="bullet">
/// <item>its connects and its opens each slower than <see cref="DiagnosticsOptions.SlowOpenFloor"/> (less is never a
/// finding), and at least two connects;</item>
/// <item>its connections ran a statement (a wave that served no request is a warm-up written by hand);</item>
/// <item>the thread pool did not starve meanwhile (late by its threshold: the machine, not the server, explains the
/// time);</item>
/// <item>for a wave of async opens, the process sat idle, waiting, for a stretch of at least <see cref="WaitedShare"/> of
/// the floor while it connected (<see cref="Waited"/>): a fresh process whose own start-up made its opens slow never
/// does;</item>
/// <item>for a wave of async opens, the server's connect, as its fastest tenth of connecting opens reads it
/// (<see cref="ServerConnectMs"/>, <see cref="MostlyServer"/>), took longer than the floor, with at least
/// <see cref="ServerShare"/> of their time not the process's start-up, and at least <see cref="HarmShare"/> of the
/// requests' time against their own work as the same pool's warm connections run it (<see cref="WorkMs"/>): the requests
/// took at least twice their own work;</item>
/// <item>or, for a synchronous wave, the opens net of the process's compiling (the share their own threads did:
/// <see cref="OpenersShare"/>) and the thread pool's lateness (<see cref="NetOpenMs"/>), or, where each open's thread was
/// read, the time its fastest tenth of connecting opens spent blocked on the server (<see cref="BlockedServerMs"/>), took
/// longer than the floor and at least <see cref="HarmShare"/> of the requests' time.</item>
/// </list>
/// </summary>
internal static class ColdStartRule
{
    /// <summary>
    /// The share of the requests' time the opens must take to be a finding: half, the requests took twice their own work.
    /// Loopback connects on a busy machine take a third and more of a first burst's time (60 callers each doing 0.2 s of
    /// work, beside a CPU hog: 111 ms connects, 36 %), and server connects slowed by the load alone as much (150 ms
    /// connects measured 290 ms, 36 % of requests doing 0.5 s): half is clear of both
    /// (docs/results/diagnostics/cold-start-harm.md).
    /// </summary>
    internal const double HarmShare = 0.5;

    /// <summary>
    /// What the wave's opens took on average net of the process's start-up: the smaller of the mean open less the time the
    /// process compiled during it (each open's own, at most its time) and the wave's time less all the compiling over it
    /// (at most the CPU time the process used over it: <see cref="WaveCompileMs"/>) (compiling on several threads at once
    /// over-explains one open; the wave bounds it), each less the thread pool's
    /// lateness during the async opens instead where that is longer (an async connect waits for it, a synchronous one does
    /// not; in a fresh process much of it is the same compiling, so the larger of the two is taken, not their sum). A fresh
    /// process's first connects over loopback wait for their code, a slow server's connects wait for the server
    /// (docs/results/diagnostics/cold-start-net-of-compile.md). For a wave of synchronous opens only the
    /// <see cref="OpenersShare"/> of the compiling is netted, and the result is at most the opens' tenth percentile
    /// (<see cref="ColdWave.LowOpenMs"/>): a slow server makes nearly every connecting open wait its connect time, while a
    /// fresh process's loopback wave has opens that connect at once when the code is compiled (a tenth of 150 sync
    /// loopback opens under 38 ms at loads of 10 to 22, against 120 ms and more behind 120 ms connects).
    /// </summary>
    public static double NetOpenMs(in ColdWave wave)
    {
        // Only an async open waits for the thread pool (its continuations); a synchronous one holds its thread throughout.
        double late = wave.AsyncThreadPoolDelayMs;
        double share = OpenersShare(wave);
        double perOpen = wave.MeanOpenMs - Math.Max(wave.MeanOpenCompileMs * share, late);
        double overWave = wave.WaveMs > 0 ? wave.WaveMs - Math.Max(WaveCompileMs(wave) * share, late) : double.MaxValue;
        double low = wave.Synchronous && !double.IsNaN(wave.LowOpenMs) ? wave.LowOpenMs : double.MaxValue;
        return Math.Max(0, Math.Min(Math.Min(perOpen, overWave), low));
    }

    /// <summary>
    /// The compiling netted from the wave's time: what the JIT timed over it, at most the CPU time the process used over it
    /// where that was sampled (<see cref="WaveActivity.CpuMs"/>). The JIT's time is its threads' time compiling, summed: on
    /// several threads at once, and on a busy machine with each compiling thread waiting for a CPU, it runs past the
    /// process's CPU time and even past the wave's own: 200 synchronous callers on 125 ms connects at load 20 timed 1387 ms
    /// of compiling over a 1248 ms wave in which the process used 350 ms of CPU, and netting all of it left nothing of the
    /// server's wait (docs/results/diagnostics/cold-start-rule-2026-11-30d.md).
    /// </summary>
    public static double WaveCompileMs(in ColdWave wave) =>
        wave.Activity is { } seen && !double.IsNaN(seen.CpuMs) ? Math.Min(wave.CompileMs, seen.CpuMs) : wave.CompileMs;

    /// <summary>
    /// The share of the process's compiling over a wave of synchronous opens that the opens could have waited for: what
    /// their own threads compiled during them (each open holds its thread, <see cref="ColdWave.OpenersCompileMs"/>) against
    /// all the process compiled over the wave; 1 where that is not known (async opens move between threads). A synchronous
    /// open waits for the code its connect runs, compiled by its own thread or by another opening thread first; the rest of
    /// the process's compiling meanwhile (the callers' own start, the statements of those already connected, the runtime's
    /// tier-up in the background) runs beside a connect that waits on the server, and on a busy machine it takes as long
    /// as the server's wait: 150 synchronous callers on 120 ms connects measured 18 to 65 ms of compiling during each
    /// open, a 0.22 to 0.54 share of it their own; a fresh process's loopback opens 0.62 to 1.00
    /// (docs/results/diagnostics/cold-start-rule-2026-11-30c.md).
    /// </summary>
    public static double OpenersShare(in ColdWave wave) =>
        !wave.Synchronous || double.IsNaN(wave.OpenersCompileMs) ? 1
        : wave.CompileMs > 0 ? Math.Clamp(wave.OpenersCompileMs / wave.CompileMs, 0, 1) : 1;

    /// <summary>
    /// The share of <see cref="DiagnosticsOptions.SlowOpenFloor"/> the process must have sat idle at a stretch while the wave
    /// connected (<see cref="Waited"/>): a quarter (25 ms by default). A slow server's connects leave every caller waiting
    /// on it at once, the process with nothing to run: 45 to 400 ms at a stretch on 120 to 300 ms connects (15 to 69 ms
    /// for 150 synchronous callers on 120 ms, whose start-up overlaps the server's wait). A fresh process's 128 async
    /// loopback connects keep it busy with its own start-up: idle 5 to 21 ms at most at loads of 10 to 27
    /// (docs/results/diagnostics/cold-start-rule-2026-11-30b.md).
    /// </summary>
    internal const double WaitedShare = 0.25;

    /// <summary>
    /// Whether the process waited on something outside it while the wave connected: it sat idle (<see cref="WaveActivity"/>)
    /// for <see cref="WaitedShare"/> of the floor at a stretch, or nothing was sampled (a test's or a replay's clock). A wave
    /// of synchronous opens is not asked: each holds its thread, and what it waited for besides the server is its JIT
    /// (<see cref="NetOpenMs"/> nets it out), not continuations queued behind the process's start-up; and its callers'
    /// start (150 threads on a loaded machine) can fill the server's whole wait.
    /// </summary>
    public static bool Waited(in ColdWave wave, DiagnosticsOptions options) =>
        wave.Synchronous || wave.Activity is not { } seen || double.IsNaN(seen.LongestIdleMs)
        || seen.LongestIdleMs >= WaitedShare * options.SlowOpenFloor.TotalMilliseconds;

    /// <summary>What the requests' own work took on average net of the process's compiling during their holds.</summary>
    public static double NetHeldMs(in ColdWaveHolds verdict) => Math.Max(0, verdict.MeanHeldMs - verdict.MeanHeldCompileMs);

    /// <summary>
    /// What the requests' own work takes: the median of the holds that began after the wave, on its warm connections (the
    /// same requests without the cold start: a fresh process's first holds are stretched by its start-up, and a loaded
    /// machine's compiling, subtracted, over-explains a hold that waited on the server); without any, the wave's own
    /// holds net of the compiling during them (<see cref="NetHeldMs"/>).
    /// </summary>
    public static double WorkMs(in ColdWaveHolds verdict) => verdict.WarmHolds > 0 ? verdict.WarmHeldMs : NetHeldMs(verdict);

    /// <summary>Whether <paramref name="verdict"/> is a cold start under <paramref name="options"/>.</summary>
    public static bool IsColdStart(in ColdWaveHolds verdict, DiagnosticsOptions options)
    {
        ColdWave wave = verdict.Wave;
        double floorMs = options.SlowOpenFloor.TotalMilliseconds;
        if (wave.Connects < 2 || wave.ConnectMs <= floorMs || wave.MeanOpenMs <= floorMs)
            return false; // what the floor says: nothing faster is ever a finding
        if (!verdict.RanStatements)
            return false; // no request: a warm-up written by hand (opened, and given back unused)

        // The thread pool starved while the wave connected (late by its threshold): it, not the server, explains the time,
        // and the starvation detector speaks for it. Lateness short of that is subtracted from the opens (NetOpenMs).
        if (wave.ThreadPoolDelayMs >= options.ThreadPoolDelayThreshold.TotalMilliseconds)
            return false;

        // The process never sat waiting while the wave's async opens connected: its own start-up (the JIT, unoptimised first
        // code, a thread pool of a few threads running every connect's continuations) kept them waiting, not the server.
        if (!Waited(wave, options))
            return false;

        // What the server cost each open: for an async wave, its fastest connects' reading, once start-up is shown to explain
        // less than half of them; for a synchronous wave (or one whose connecting opens were not timed), the opens net of the
        // process's start-up (which the server did not cause). Over the floor, and half the requests' time or more against
        // their own work as warm connections run it: the requests took twice as long.
        bool byConnects = !wave.Synchronous && !double.IsNaN(wave.LowConnectOpenMs);
        if (byConnects && !MostlyServer(wave))
            return false;
        double serverMs = byConnects ? ServerConnectMs(wave) : Math.Max(NetOpenMs(wave), BlockedServerMs(wave));
        return serverMs > floorMs && serverMs >= HarmShare * (serverMs + WorkMs(verdict));
    }

    /// <summary>
    /// What the server made a synchronous wave's connecting opens wait, read from their own threads
    /// (<see cref="ColdOpenThread"/>, on Linux): the fastest tenth of the time each sat blocked, neither on a CPU nor waiting in
    /// the run queue for one (<see cref="ColdWave.LowConnectBlockedMs"/>), where at least <see cref="ServerShare"/> of it is left
    /// once the opening threads' share of the process's compiling during each open is taken out
    /// (<see cref="ColdWave.LowConnectBlockedNetMs"/>, <see cref="OpenersShare"/>); otherwise, or where not read (async opens,
    /// other systems, a test's clock), 0. A synchronous open holds its thread: the time it spent compiling or waiting for a
    /// CPU (a busy machine, the process's own start-up) is not blocked time, so nothing of the process's start-up lengthens
    /// this reading and nothing is netted from it. What is left is a wait on the server's socket, or on a lock: another
    /// opening thread compiling the code the open runs, which the openers' share of the compiling bounds (the rest of it
    /// ran beside the open, not in its way). A slow server blocks every connecting open for its connect time; a fresh
    /// process's threads opening at once over loopback block on the one compiling their connect path, the process
    /// compiling throughout (synchronous callers on connects of 101 to 130 ms at loads of 11 to 65 left 0.41 to 0.97 of
    /// their blocked time, 0.59 or more in every wave <see cref="NetOpenMs"/> left under the floor; loopback waves of 8 to
    /// 330 callers in <c>Task.Run</c> whose fastest tenth sat blocked past the floor at most 0.20, 64 and 150 plain threads
    /// at once 0.08 to 0.52 but for two waves stretched past a second that <see cref="NetOpenMs"/> names too;
    /// docs/results/diagnostics/cold-start-rule-2026-12-01.md). Where this reading is 0, <see cref="NetOpenMs"/> judges the
    /// wave as before.
    /// </summary>
    public static double BlockedServerMs(in ColdWave wave) =>
        wave.Synchronous && !double.IsNaN(wave.LowConnectBlockedMs)
        && wave.LowConnectBlockedNetMs >= ServerShare * wave.LowConnectBlockedMs
            ? wave.LowConnectBlockedMs
            : 0;

    /// <summary>
    /// The share of a connecting open's time that must be left once what the process's start-up could have cost it is taken
    /// out (<see cref="ColdWave.LowConnectNetMs"/> against <see cref="ColdWave.LowConnectOpenMs"/>, the wave's fastest tenth
    /// of each) for its time to be the server's: half, the process compiled (or ran its continuations late) for less of the
    /// open than it did not. Against the open's whole time, not its time less the thread pool's lateness: a loopback wave
    /// whose continuations ran 140 ms late would otherwise keep half of what was left. An open waiting for its code has the
    /// process compiling nearly throughout (78 fresh processes' async loopback waves of 60 to 330 callers, beside a CPU hog
    /// too: at most 0.42 left); an open waiting on a slow server has the process compiling only beside that wait (connects
    /// of 103 to 122 ms: 0.51 to 0.94 left in 76 of 78 waves; docs/results/diagnostics/cold-start-rule-2026-11-30f.md).
    /// </summary>
    internal const double ServerShare = 0.5;

    /// <summary>
    /// What the wave's fastest tenth of connecting opens says the server's connect took. It lies between their time less the
    /// thread pool's lateness, which delayed their continuations (<see cref="ColdWave.LowConnectOnTimeMs"/>: a compiling
    /// process cannot make a server connect faster), and their time less all the process compiled meanwhile as well
    /// (<see cref="ColdWave.LowConnectNetMs"/>), which also takes out what was compiled beside the server's wait without
    /// delaying the open (other callers' code, the runtime's tier-up in the background: 140 async callers on 105 ms connects
    /// read 73 to 96 ms net, 117 to 127 ms raw). An async open adds its handshake's continuations on a busy thread pool to
    /// the server's time (80 ms connects: 94 to 109 ms raw, 74 to 88 ms net): the middle of the two. Read for async waves
    /// only (a synchronous wave is judged by <see cref="NetOpenMs"/>).
    /// </summary>
    public static double ServerConnectMs(in ColdWave wave) => (wave.LowConnectOnTimeMs + wave.LowConnectNetMs) / 2;

    /// <summary>
    /// Whether at least <see cref="ServerShare"/> of the time of the wave's fastest tenth of connecting opens was not the
    /// process's start-up: their connects waited on the server. Judged on the fastest tenth, not the mean: a slow server
    /// delays every connect, while a burst that overflows the server's listen backlog leaves a few opens a second late and
    /// the rest fast (180 to 330 async loopback callers: waves of 1.1 to 1.3 s whose mean, net of start-up, read 130 to 390
    /// ms). <see cref="IsColdStart"/> then asks <see cref="ServerConnectMs"/> to pass the floor.
    /// </summary>
    public static bool MostlyServer(in ColdWave wave) => wave.LowConnectNetMs >= ServerShare * wave.LowConnectOpenMs;

    /// <summary>
    /// Whether a slow connecting open of <paramref name="openMs"/> by a late caller of a first burst (one that arrived
    /// after the burst's first wave closed, <see cref="ColdStarts.LateInBurst"/>) is that burst's cold start, not yet named.
    /// Its callers all open on the same server: a tenth of the wave's opens within
    /// <see cref="DiagnosticsOptions.SlowOpenFloor"/> (<see cref="ColdWave.LowOpenMs"/>) says the server connects within
    /// it, and a late caller that took longer waited for the burst's crowd and the machine's CPU, not for the server (250
    /// synchronous loopback callers on 2 cores: a wave whose fastest tenth took 1 to 76 ms, then late opens of 100 to 740
    /// ms, each thread 0.2 ms on a CPU and 21 to 27 ms waiting for one at the median, the rest waiting on a server that
    /// itself waited for a CPU; behind slow servers the waves' fastest tenth took 124 to 300 ms:
    /// docs/results/diagnostics/cold-start-rule-2026-11-30e.md). Otherwise the server's connects are slow: a wave already
    /// named said so (nothing more), and a wave not named (not judged yet, its start-up's compiling netted, or its work
    /// long) is named through its late caller when that caller's open alone, after the process's start-up, took past the
    /// floor and at least <see cref="HarmShare"/> of the request's time against the burst's own work.
    /// </summary>
    public static bool IsLateColdStart(in FirstBurst burst, double openMs, DiagnosticsOptions options)
    {
        double floorMs = options.SlowOpenFloor.TotalMilliseconds;
        if (!(burst.LowOpenMs > floorMs) || burst.Cold || !burst.Judged)
            return false; // a server that connects within the floor; or a cold start already named; or its verdict is coming
        return openMs > floorMs && openMs >= HarmShare * (openMs + burst.WorkMs);
    }
}
