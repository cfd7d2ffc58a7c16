namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// A first wave of connects once its opens were all done (<see cref="ColdStarts"/>): how many opens, how many of them
/// connected, the physical connects made and what one cost, the opens' mean and slowest time, whether it began because
/// connections were lost, how late the thread pool ran work meanwhile, how long the process spent compiling code (its
/// JIT, summed over its threads) from the wave's first open to its last, and how long that was.
/// </summary>
internal readonly record struct ColdWave(
    int Opens, int ConnectingOpens, long Connects, double ConnectMs, double MeanOpenMs, double SlowestOpenMs, bool AfterLoss,
    double ThreadPoolDelayMs, double CompileMs = 0, double WaveMs = 0);

/// <summary>
/// A wave with its holds: how many, how long on average, and whether any ran a statement (a hold still out when the
/// wave was judged is counted as one that did).
/// </summary>
internal readonly record struct ColdWaveHolds(ColdWave Wave, int Holds, double MeanHeldMs, bool RanStatements);
