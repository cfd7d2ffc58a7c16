using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>Thread-pool starvation from 20 blocked work items: synchronous calls, and sync-over-async.</summary>
internal static class StarvationScenarios
{
    public static IEnumerable<Scenario> All()
    {
        yield return Scenario.Pathology("starvation-sync", "20 Task.Run(() => db.Execute(\"do sleep(1)\")) at once", FindingKind.ThreadPoolStarvation, "starved", async run =>
        {
            Database db = run.Open();
            await Task.WhenAll(Enumerable.Range(0, 20).Select(_ => Task.Run(() => db.Execute("do sleep(1)"))));
        });

        yield return Scenario.Pathology("starvation-sync-over-async", "20 Task.Run(() => db.ExecuteAsync(\"do sleep(1)\").Result) at once", FindingKind.ThreadPoolStarvation, "starved", async run =>
        {
            Database db = run.Open();
            await Task.WhenAll(Enumerable.Range(0, 20).Select(_ => Task.Run(() => db.ExecuteAsync("do sleep(1)").Result)));
        });
    }
}
