namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// A first wave of connects once its opens were all done (<see cref="ColdStarts"/>): how many opens, how many of them
/// connected, the physical connects made and what one cost, the opens' mean and slowest time, whether it began because
/// connections were lost, how late the thread pool ran work meanwhile, how long the process spent compiling code (its
/// JIT, summed over its threads) from the wave's first open to its last, how long that was, how long it compiled
/// during an open on average (for each open, at most the open's own time), what the process did over the wave (its CPU
/// time and idle stretches, <see cref="WaveActivity"/>; null when not sampled), and how late the thread pool ran work
/// during the async opens (a synchronous open waits for no continuation: its lateness is not the open's), whether
/// every open of the wave was synchronous, and then how long the opens' own threads compiled during them, summed over the
/// opens (those read on their own thread at both ends, scaled to all; NaN when none was: async opens move between threads),
/// the tenth percentile of the opens' times (NaN when none completed), and of the opens that made a physical connect, the
/// tenth percentile of their times, of their times less the thread pool's lateness during each (for an async open), and of
/// their times less what the process's start-up could have cost each (the process's compiling during it, or for an async
/// open the thread pool's lateness where that is longer); NaN when none connected (<see cref="ColdStartRule.ServerConnectMs"/>);
/// and, for a wave of synchronous opens read on their threads from the scheduler (<see cref="ColdOpenThread"/>), the tenth
/// percentile of the time each connecting open sat blocked (off a CPU, not waiting for one) and of that time less the
/// opening threads' share of the process's compiling during the open (<see cref="ColdStartRule.OpenersShare"/>); NaN
/// otherwise (<see cref="ColdStartRule.BlockedServerMs"/>); and whether it was named while its opens still waited
/// (<see cref="ColdStarts"/>' watch: then its verdict is not reported again).
/// </summary>
internal readonly record struct ColdWave(
    int Opens, int ConnectingOpens, long Connects, double ConnectMs, double MeanOpenMs, double SlowestOpenMs, bool AfterLoss,
    double ThreadPoolDelayMs, double CompileMs = 0, double WaveMs = 0, double MeanOpenCompileMs = 0, WaveActivity? Activity = null,
    double AsyncThreadPoolDelayMs = 0, bool Synchronous = false, double OpenersCompileMs = double.NaN, double LowOpenMs = double.NaN,
    double LowConnectOpenMs = double.NaN, double LowConnectOnTimeMs = double.NaN, double LowConnectNetMs = double.NaN,
    double LowConnectBlockedMs = double.NaN, double LowConnectBlockedNetMs = double.NaN, bool NamedWhileWaiting = false);

/// <summary>
/// A wave with its holds: how many, how long on average, whether any ran a statement (a hold still out when the wave
/// was judged is counted as one that did), how long the process compiled during a hold on average (for each, at
/// most the hold's own time: a fresh process's first statements wait for their code too), and how many holds began after
/// the wave, on its then warm connections, with their median time (0 when none was seen): the requests' own work.
/// </summary>
internal readonly record struct ColdWaveHolds(
    ColdWave Wave, int Holds, double MeanHeldMs, bool RanStatements, double MeanHeldCompileMs = 0, int WarmHolds = 0,
    double WarmHeldMs = 0);

/// <summary>
/// A first wave's burst as its late callers see it (<see cref="ColdStarts.LateInBurst"/>): the tenth percentile of the
/// wave's opens' times (<see cref="ColdWave.LowOpenMs"/>: what the server's connects cost before the burst's crowd grew),
/// the physical connects the wave made, whether the wave was judged yet, whether it was a cold start, and the requests'
/// own work as its verdict priced it (<see cref="ColdStartRule.WorkMs"/>; NaN before the verdict).
/// </summary>
internal readonly record struct FirstBurst(double LowOpenMs, long WaveConnects, bool Judged, bool Cold, double WorkMs);
