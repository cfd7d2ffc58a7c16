using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// Loads written by the lead while the cold-start and thread-pool rules were being changed (2026-11-30, twenty-second
/// session) and never shown to whoever changed them: first waves at other caller counts, connect and query times
/// (20 to 300 callers, connects of 115 to 200 ms, the three shapes), and thread-pool loads at other sizes (blocking
/// callers with the default minimum, which starve it; synchronous workers that raised the minimum past their
/// concurrency, which do not).
/// </summary>
internal static class HeldOutScenarios
{
    public static IEnumerable<Scenario> All() => new ColdGrid(
        "heldout-wave",
        [
            ("sync", 60, 115, 30),
            ("sync", 160, 150, 50),
            ("async", 90, 115, 20),
            ("async", 170, 135, 40),
            ("web", 24, 130, 10),
            ("web", 100, 200, 100),
            ("sync", 160, 0, 50),
            ("sync", 250, 0, 10),
            ("async", 170, 0, 40),
            ("web", 100, 0, 100),
            ("async", 60, 110, 400),
        ],
        callers => $"{callers} synchronous callers at once in Task.Run, then 2 s of the same",
        ColdHarmScenarios.AsyncBurstAsync,
        Harmful: (connect, query) => connect > 100 && connect >= query).Scenarios().Concat(Starvation());

    private static IEnumerable<Scenario> Starvation()
    {
        yield return Scenario.Pathology("heldout-starvation-blocking-30", "a console worker with the default thread-pool minimum: 30 Task.Run(() => db.Execute(\"do sleep(0.3)\")) at once, three times", FindingKind.ThreadPoolStarvation, "", async run =>
        {
            Database db = run.Open();
            run.MarkOnset();
            for (int round = 0; round < 3; round++)
                await Task.WhenAll(Enumerable.Range(0, 30).Select(_ => Task.Run(() => db.Execute("do sleep(0.3)"))));
        });

        yield return Scenario.Pathology("heldout-starvation-sync-over-async-40", "40 Task.Run(() => db.QueryAsync<long>(\"select sleep(0.4)\").Result) at once", FindingKind.ThreadPoolStarvation, "", async run =>
        {
            Database db = run.Open();
            run.MarkOnset();
            await Task.WhenAll(Enumerable.Range(0, 40).Select(_ => Task.Run(() => db.QueryAsync<long>("select sleep(0.4)").Result.Count())));
        });

        yield return Scenario.CleanOne("heldout-sync-workers-120-minthreads", "a worker that raised the thread-pool minimum to 130: 120 synchronous callers in Task.Run looping 'do sleep(0.02)' for 3 s (loopback, warm after the first wave)", async run =>
        {
            ThreadPool.GetMinThreads(out int workers, out int io);
            ThreadPool.SetMinThreads(Math.Max(workers, 130), io);
            Database db = run.Open("Max Pool Size=120");
            await ScenarioRun.ForAsync(120, TimeSpan.FromSeconds(3), _ => Task.Run(() => db.Execute("do sleep(0.02)")));
        });
    }
}
