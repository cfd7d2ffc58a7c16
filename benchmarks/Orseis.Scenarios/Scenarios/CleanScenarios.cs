namespace Orseis.Scenarios.Scenarios;

/// <summary>Healthy code that must stay silent: every detector on, default settings.</summary>
internal static class CleanScenarios
{
    public static IEnumerable<Scenario> All()
    {
        yield return Scenario.CleanOne("session-loop", "2 s of sequential queries on one Session (sync and async)", async run =>
        {
            Database db = run.Open();
            await using Session session = await db.OpenSessionAsync();
            DateTime end = DateTime.UtcNow.AddSeconds(2);
            for (int i = 0; DateTime.UtcNow < end; i++)
            {
                if (i % 2 == 0)
                    session.Scalar<long>("select 1");
                else
                    await session.QuerySingleAsync<long>("select 1");
            }
        });

        yield return Scenario.CleanOne("reuse-loop", "2 s of sequential queries in ReuseConnection mode", async run =>
        {
            Database db = run.Open(mode: ExecutionMode.ReuseConnection);
            DateTime end = DateTime.UtcNow.AddSeconds(2);
            while (DateTime.UtcNow < end)
            {
                db.Scalar<long>("select 1");
                await db.QueryFirstAsync<long>("select 1");
            }
        });

        yield return Scenario.CleanOne("web-method-per-request", "16 users, each request an async method making one call, 5-25 ms think time, 3 s", async run =>
        {
            Database db = run.Open();
            await ScenarioRun.ForAsync(16, TimeSpan.FromSeconds(3), async user =>
            {
                await HandleRequestAsync(db, user);
                await Task.Delay(Random.Shared.Next(5, 25));
            });
        });

        yield return Scenario.CleanOne("web-worker-loop", "4 long-lived workers, one call per message, 10 messages/s each, 3 s", async run =>
        {
            Database db = run.Open();
            await Task.WhenAll(Enumerable.Range(0, 4).Select(worker => WorkerAsync(db, worker, TimeSpan.FromSeconds(3))));
        });

        yield return FullPoolNobodyQueues();

        yield return Scenario.CleanOne("warm-concurrency-noise", "warm pool of 16, 12 callers with short think time, CPU and GC noise in-process, 3 s", async run =>
        {
            Database db = run.Open();
            await ScenarioRun.WarmAsync(db, 16);
            using var noise = new CancellationTokenSource();
            Thread spinner = new(() =>
            {
                while (!noise.IsCancellationRequested)
                {
                    byte[][] garbage = [.. Enumerable.Range(0, 2000).Select(_ => new byte[1024])];
                    GC.KeepAlive(garbage);
                    Thread.SpinWait(200_000);
                    if (Random.Shared.Next(10) == 0)
                        GC.Collect();
                }
            }) { IsBackground = true };
            spinner.Start();
            await ScenarioRun.ForAsync(12, TimeSpan.FromSeconds(3), async _ =>
            {
                await db.QuerySingleAsync<long>("select 1");
                await Task.Delay(Random.Shared.Next(1, 10));
            });
            await noise.CancelAsync();
        });
    }

    /// <summary>
    /// The "100 callers with a pool of 100 and nobody queueing": every connection in use at once, nobody waits,
    /// so no saturation and no "raise" advice.
    /// </summary>
    private static Scenario FullPoolNobodyQueues() => Scenario.CleanOne(
        "full-pool-nobody-queues", "Max Pool Size=100, 100 callers released together, each holding 200 ms", async run =>
        {
            Database db = run.Open();
            await Scenarios.ColdScenarios.AllAtOnceAsync(100, () => db.ExecuteAsync("do sleep(0.2)"));
        });

    /// <summary>A request handler: one call, its own flow.</summary>
    private static async Task HandleRequestAsync(Database db, int user)
    {
        long id = await db.QuerySingleAsync<long>("select @user", new { user });
        GC.KeepAlive(id);
    }

    /// <summary>A worker that takes one message every 100 ms and makes one call for it.</summary>
    private static async Task WorkerAsync(Database db, int worker, TimeSpan duration)
    {
        using var timer = new PeriodicTimer(TimeSpan.FromMilliseconds(100));
        DateTime end = DateTime.UtcNow + duration;
        while (DateTime.UtcNow < end && await timer.WaitForNextTickAsync())
            await db.ExecuteAsync("select @worker", new { worker });
    }
}
