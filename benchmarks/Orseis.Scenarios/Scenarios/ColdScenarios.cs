using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// Cold pools: more callers than warm connections while new connections are slow on the server (init_connect sleeps
/// 0.3 s for every new connection of the test user), both on a fresh pool and on one the provider pruned while idle.
/// </summary>
internal static class ColdScenarios
{
    public static IEnumerable<Scenario> All()
    {
        yield return Scenario.Pathology("cold-burst", "4 warm connections, then 40 callers at once; new connections take 0.3 s (init_connect)", FindingKind.SlowOpen, "Cold pool", async run =>
        {
            Database db = run.Open();
            await ScenarioRun.WarmAsync(db, 4);
            await WithSlowConnectsAsync(() => Task.WhenAll(Enumerable.Range(0, 40).Select(_ => Task.Run(() => db.QuerySingleAsync<long>("select 1")))));
        });

        yield return Scenario.Pathology("idle-pruned", "20 warm connections pruned after 2 s idle (Connection Idle Timeout=1), then 20 callers at once; slow connects", FindingKind.SlowOpen, "Cold pool", async run =>
        {
            Database db = run.Open("Connection Idle Timeout=1");
            await ScenarioRun.WarmAsync(db, 20);
            await Task.Delay(TimeSpan.FromSeconds(3.5), run.Stop);
            await WithSlowConnectsAsync(() => Task.WhenAll(Enumerable.Range(0, 20).Select(_ => Task.Run(() => db.ExecuteAsync("select 1")))));
        });

        yield return Scenario.Pathology("cold-burst-mysqldata", "MySql.Data (no pool meter), synchronous: 40 threads open at once on a cold pool; slow connects", FindingKind.SlowOpen, "Cold pool", async run =>
        {
            Database db = run.OpenMySqlData();
            db.Scalar<long>("select 1");
            await WithSlowConnectsAsync(() =>
            {
                var threads = Enumerable.Range(0, 40).Select(_ => new Thread(() => db.Scalar<long>("select 1"))).ToList();
                threads.ForEach(t => t.Start());
                threads.ForEach(t => t.Join());
                return Task.CompletedTask;
            });
        });
    }

    private static async Task WithSlowConnectsAsync(Func<Task> body)
    {
        await Server.SlowConnectsAsync(0.3);
        try
        {
            await body();
        }
        finally
        {
            await Server.SlowConnectsAsync(null);
        }
    }
}
