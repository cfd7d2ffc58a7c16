namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Whether a first wave of connects, with its holds back, is a cold start worth a finding: what the server's slow
/// connects cost the requests, told from what a fresh process's own start-up costs them.
/// <list type="bullet">
/// <item>its connects and its opens each slower than <see cref="DiagnosticsOptions.SlowOpenFloor"/> (less is never a
/// finding), and at least two connects;</item>
/// <item>its connections ran a statement (a wave that served no request is a warm-up written by hand);</item>
/// <item>the thread pool did not run work late by its starvation threshold or by half a connect (the machine, not the
/// server, explains the time);</item>
/// <item>the process did not spend <see cref="CompileShare"/> of the wave's time or more compiling code (the JIT of a
/// fresh process: its first connects over loopback wait for the code they run; a slow server's connects leave the
/// process waiting, with nothing to compile, for most of the wave);</item>
/// <item>the opens, net of the thread pool's lateness, were at least <see cref="HarmShare"/> of the requests' time: the
/// requests took at least twice their own work.</item>
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
    /// The share of the wave's time (its first open's start to its last open's end) the process's compiling (JIT, summed
    /// over its threads) must reach for the wave to be the process's start-up rather than the server: half. A fresh
    /// process's first bursts of tiny requests over loopback compiled for 0.61 to 1.2 of the wave in all but one of 27
    /// runs (8 to 128 callers; sync, async and ASP.NET Core; load average 26 to 47); first bursts on 150 and 300 ms server
    /// connects, 0.20 to 0.59, above a half in 4 of 22 (docs/results/diagnostics/cold-start-process-2026-11-29.md).
    /// </summary>
    internal const double CompileShare = 0.5;

    /// <summary>Whether <paramref name="verdict"/> is a cold start under <paramref name="options"/>.</summary>
    public static bool IsColdStart(in ColdWaveHolds verdict, DiagnosticsOptions options)
    {
        ColdWave wave = verdict.Wave;
        double floorMs = options.SlowOpenFloor.TotalMilliseconds;
        if (wave.Connects < 2 || wave.ConnectMs <= floorMs || wave.MeanOpenMs <= floorMs)
            return false; // what the floor says: nothing faster is ever a finding
        if (!verdict.RanStatements)
            return false; // no request: a warm-up written by hand (opened, and given back unused)

        // The thread pool ran work late while the wave connected, by its starvation threshold or by half a connect: it, not
        // the server, explains the time (the starvation detector speaks for it).
        if (wave.ThreadPoolDelayMs >= options.ThreadPoolDelayThreshold.TotalMilliseconds || wave.ThreadPoolDelayMs * 2 >= wave.ConnectMs)
            return false;

        // The process compiled code for half the wave or more: its own start-up, which the server did not cause.
        if (wave.CompileMs > 0 && wave.CompileMs >= CompileShare * wave.WaveMs)
            return false;

        // Judged net of the thread pool's lateness, which an async connect waits for and the server did not cause.
        double netOpenMs = wave.MeanOpenMs - wave.ThreadPoolDelayMs;
        return netOpenMs >= HarmShare * (netOpenMs + verdict.MeanHeldMs);
    }
}
