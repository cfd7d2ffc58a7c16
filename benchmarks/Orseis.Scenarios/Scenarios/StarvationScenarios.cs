using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// Thread-pool starvation from blocked work items: synchronous calls and sync-over-async that the runtime answers with
/// threads, and the console worker's plain blocking calls that it does not (completions keep coming), at several sizes;
/// a short burst of the same calls stays silent. The onset is the moment the blocking work items are queued.
/// </summary>
internal static class StarvationScenarios
{
    public static IEnumerable<Scenario> All()
    {
        yield return Scenario.Pathology("starvation-sync", "20 Task.Run(() => db.Execute(\"do sleep(1)\")) at once", FindingKind.ThreadPoolStarvation, "starved", async run =>
        {
            Database db = run.Open();
            run.MarkOnset();
            await Task.WhenAll(Enumerable.Range(0, 20).Select(_ => Task.Run(() => db.Execute("do sleep(1)"))));
        });

        yield return Scenario.Pathology("starvation-sync-over-async", "20 Task.Run(() => db.ExecuteAsync(\"do sleep(1)\").Result) at once", FindingKind.ThreadPoolStarvation, "starved", async run =>
        {
            Database db = run.Open();
            run.MarkOnset();
            await Task.WhenAll(Enumerable.Range(0, 20).Select(_ => Task.Run(() => db.ExecuteAsync("do sleep(1)").Result)));
        });

        foreach (int items in new[] { 50, 100 })
        {
            yield return Scenario.Pathology($"starvation-blocking-{items}", $"a console worker: {items} Task.Run(() => db.Query<long>(\"select sleep(0.5)\")) at once", FindingKind.ThreadPoolStarvation, "blocked inside synchronous Orseis calls", async run =>
            {
                Database db = run.Open();
                await BlockingCallsAsync(run, db, items);
            });
        }

        // The same calls queued from a pool thread (an async Main after its first await): they wait in that thread's own
        // queue, which the probe's work item passes.
        yield return Scenario.Pathology("starvation-blocking-after-await", "an async Main after its first await: 50 Task.Run(() => db.Query<long>(\"select sleep(0.5)\")) at once", FindingKind.ThreadPoolStarvation, "blocked inside synchronous Orseis calls", async run =>
        {
            Database db = run.Open();
            await Task.Delay(10);
            await BlockingCallsAsync(run, db, 50);
        });

        // A worker that computed first: hill climbing lets fewer threads run work than exist.
        yield return Scenario.Pathology("starvation-blocking-after-cpu-burst", "4 s of CPU-bound work items, 1.5 s idle, then 50 Task.Run(() => db.Query<long>(\"select sleep(0.5)\")) at once", FindingKind.ThreadPoolStarvation, "blocked inside synchronous Orseis calls", async run =>
        {
            Database db = run.Open();
            await Orseis.Testing.CpuBurst.RunAsync(TimeSpan.FromSeconds(4));
            await Task.Delay(1500);
            await BlockingCallsAsync(run, db, 50);
        });

        // The same burst of computation followed by awaited calls: busy threads, no blocked ones.
        yield return Scenario.CleanOne("cpu-burst-then-async-calls", "4 s of CPU-bound work items, then 50 awaited db.QueryAsync<long>(\"select sleep(0.5)\") at once", async run =>
        {
            Database db = run.Open();
            await Orseis.Testing.CpuBurst.RunAsync(TimeSpan.FromSeconds(4));
            await Task.WhenAll(Enumerable.Range(0, 50).Select(_ => db.QueryAsync<long>("select sleep(0.5)")));
        });

        yield return Scenario.CleanOne("blocking-short-burst", "4 Task.Run(() => db.Query<long>(\"select sleep(0.05)\")) at once, ten times, 0.2 s apart", async run =>
        {
            Database db = run.Open();
            for (int i = 0; i < 10; i++)
            {
                await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Run(() => db.Query<long>("select sleep(0.05)"))));
                await Task.Delay(200);
            }
        });
    }

    /// <summary>A console worker's load: <paramref name="calls"/> <c>Task.Run(() => db.Query&lt;long&gt;("select sleep(0.5)"))</c> at once (the onset).</summary>
    private static Task BlockingCallsAsync(ScenarioRun run, Database db, int calls)
    {
        run.MarkOnset();
        return Task.WhenAll(Enumerable.Range(0, calls).Select(_ => Task.Run(() => db.Query<long>("select sleep(0.5)"))));
    }
}
