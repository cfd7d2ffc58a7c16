using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// Issue 45: synchronous callers in <c>Task.Run</c> under a thread-pool minimum raised past them (as a worker designed for
/// them does) are not starvation, however late a probe runs beside a CPU hog: idle threads are there to take it. Clean at
/// sizes the thread-pool detector was not shown (100, 150 and 300 callers; queries of 5 and 15 ms over loopback). The
/// same callers under the default minimum do starve the pool, and must be named.
/// </summary>
internal static class CpuContentionScenarios
{
    public static IEnumerable<Scenario> All()
    {
        foreach (Scenario clean in new ColdGrid(
            "contention-wave",
            [("sync", 100, 0, 15), ("sync", 150, 0, 5), ("sync", 300, 0, 15)],
            callers => $"{callers} synchronous callers at once in Task.Run under SetMinThreads({callers + 4}), then 2 s of the same",
            ColdHarmScenarios.AsyncBurstAsync,
            Harmful: (_, _) => false).Scenarios())
        {
            yield return clean;
        }

        yield return Scenario.Pathology("starvation-sync-burst-100-default-min",
            "100 synchronous callers at once in Task.Run, each 'do sleep(0.015)', for 2 s; the thread pool's minimum left as it is",
            FindingKind.ThreadPoolStarvation, "starved", async run =>
            {
                Database db = run.Open("Max Pool Size=100");
                run.MarkOnset();
                await ScenarioRun.ForAsync(100, TimeSpan.FromSeconds(2), _ => Task.Run(() => db.Execute("do sleep(0.015)")));
            });
    }
}
