using System.Diagnostics;

namespace Orseis.Benchmarks.Study;

/// <summary>
/// Runs each query variant hot before its first measurement in a process. Tiered JIT first runs Tier-0 code and
/// replaces it with optimised code only after 30 calls and a quiet spell of 100 ms; a variant measured before that
/// (as the old monitoring job's single warm-up call did for N ≥ 4096) is measured in slow code.
/// </summary>
public static class StudyWarmup
{
    private static readonly HashSet<string> Warmed = [];

    /// <summary>How long each pass calls the query.</summary>
    public static readonly TimeSpan PassTime = TimeSpan.FromMilliseconds(300);

    /// <summary>The pause between passes, for the background JIT to install optimised code.</summary>
    public static readonly TimeSpan Pause = TimeSpan.FromMilliseconds(250);

    /// <summary>The first time <paramref name="name"/> is seen in this process: two passes of <paramref name="query"/>.</summary>
    public static void Once(string name, Func<long> query)
    {
        lock (Warmed)
        {
            if (!Warmed.Add(name))
                return;
        }

        for (int pass = 0; pass < 2; pass++)
        {
            var clock = Stopwatch.StartNew();
            for (int calls = 0; calls < 200 || clock.Elapsed < PassTime; calls++)
                query();
            Thread.Sleep(Pause);
        }
    }
}
