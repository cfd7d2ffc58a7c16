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
        yield return Scenario.Pathology("cold-burst", "4 warm connections, then 40 callers at once, each holding 50 ms; new connections take 0.3 s (init_connect)", FindingKind.SlowOpen, "Cold pool", async run =>
        {
            Database db = run.Open();
            await ScenarioRun.WarmAsync(db, 4);
            await WithSlowConnectsAsync(() => AllAtOnceAsync(40, () => db.ExecuteAsync("do sleep(0.05)")));
        });

        foreach (int callers in new[] { 20, 60 })
        {
            yield return Scenario.Pathology($"cold-first-burst-{callers}", $"a fresh pool (an app just deployed), {callers} async callers at once, each 0.2 s; new connections take 0.3 s", FindingKind.SlowOpen, "Cold start", async run =>
            {
                Database db = run.Open();
                await WithSlowConnectsAsync(() => AllAtOnceAsync(callers, () => db.ExecuteAsync("do sleep(0.2)")));
            });
        }

        yield return Scenario.CleanOne("first-burst-fast-connects", "a fresh pool, 60 async callers at once, each 0.2 s; connects as fast as loopback makes them", async run =>
        {
            Database db = run.Open();
            await AllAtOnceAsync(60, () => db.ExecuteAsync("do sleep(0.2)"));
        });

        yield return Scenario.CleanOne("warmed-first-burst", "a fresh pool warmed with WarmUpAsync(60) on slow connects (0.3 s), then 60 async callers at once, each 0.2 s", async run =>
        {
            Database db = run.Open();
            await WithSlowConnectsAsync(async () =>
            {
                await db.WarmUpAsync(60);
                await AllAtOnceAsync(60, () => db.ExecuteAsync("do sleep(0.2)"));
            });
        });

        yield return Scenario.Pathology("idle-pruned", "20 warm connections pruned while idle 3.5 s (Connection Idle Timeout=1), then 20 callers at once, each holding 50 ms; slow connects", FindingKind.SlowOpen, "Cold pool", async run =>
        {
            Database db = run.Open("Connection Idle Timeout=1");
            await ScenarioRun.WarmAsync(db, 20);
            await Task.Delay(TimeSpan.FromSeconds(3.5), run.Stop);
            await WithSlowConnectsAsync(() => AllAtOnceAsync(20, () => db.ExecuteAsync("do sleep(0.05)")));
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

    /// <summary>Starts <paramref name="callers"/> callers that all begin together (released by one signal, none blocking a thread).</summary>
    internal static async Task AllAtOnceAsync(int callers, Func<Task> call)
    {
        var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task[] all = [.. Enumerable.Range(0, callers).Select(_ => Task.Run(async () =>
        {
            await go.Task;
            await call();
        }))];
        await Task.Delay(100);
        go.SetResult();
        await Task.WhenAll(all);
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
