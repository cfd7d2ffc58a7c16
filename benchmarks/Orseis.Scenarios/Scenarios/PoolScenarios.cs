using System.Diagnostics;
using System.Globalization;
using MySqlConnector;
using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>Saturation, pool timeouts (held connections, and a server that stops answering) and a leaked session.</summary>
internal static class PoolScenarios
{
    public static IEnumerable<Scenario> All()
    {
        yield return new Scenario("saturation-burst", "Max Pool Size=10, warm; 40 callers arrive at once, each holding 100 ms",
            new Dictionary<FindingKind, string> { [FindingKind.Saturation] = "queueing for the pool", [FindingKind.PoolSize] = "raise Max Pool Size to" },
            async run =>
            {
                Database db = run.Open("Max Pool Size=10");
                await ScenarioRun.WarmAsync(db, 10);
                var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                Task[] callers = [.. Enumerable.Range(0, 40).Select(_ => Task.Run(async () =>
                {
                    await go.Task;
                    await db.ExecuteAsync("do sleep(0.1)");
                }))];
                await Task.Delay(200);
                go.SetResult();
                await Task.WhenAll(callers);
            });

        yield return new Scenario("saturation-mixed-requests",
            "Max Pool Size=5, warm; 20 users, each request three lookups then 0.5 s of work, 3 s",
            new Dictionary<FindingKind, string> { [FindingKind.Saturation] = "queueing for the pool", [FindingKind.PoolSize] = "raise Max Pool Size to" },
            async run =>
            {
                Database db = run.Open("Max Pool Size=5");
                await ScenarioRun.WarmAsync(db, 5);
                await ScenarioRun.ForAsync(20, TimeSpan.FromSeconds(3), user => MixedRequestAsync(db, user, TimeSpan.FromSeconds(0.5)));
            });

        yield return new Scenario("saturation-short-calls",
            "Max Pool Size=16, warm; 128 async workers, each 4 x select 1 back to back, open per call, 2 s (issue 45's shape); then the advised size followed",
            new Dictionary<FindingKind, string> { [FindingKind.Saturation] = "queueing for the pool" },
            run => ShortCallsAsync(run, 16));

        // The same at half the callers: on busy CPUs the advice is the callers themselves (the queue removed), followed too.
        yield return new Scenario("saturation-short-calls-64",
            "Max Pool Size=64, warm; 128 async workers, each 4 x select 1 back to back, open per call, 2 s (issue 45's shape at half the callers); then the advised size followed",
            new Dictionary<FindingKind, string> { [FindingKind.Saturation] = "queueing for the pool" },
            run => ShortCallsAsync(run, 64));

        yield return Scenario.CleanOne("mixed-requests-roomy-pool",
            "default pool, warm; 20 users, each request three lookups then 50 ms of work, 5-25 ms think time, 3 s", async run =>
        {
            // Warm, as its saturated twin: the steady load is the subject here, the first burst has scenarios of its own.
            Database db = run.Open();
            await ScenarioRun.WarmAsync(db, 20);
            await ScenarioRun.ForAsync(20, TimeSpan.FromSeconds(3), async user =>
            {
                await MixedRequestAsync(db, user, TimeSpan.FromMilliseconds(50));
                await Task.Delay(Random.Shared.Next(5, 25));
            });
        });

        yield return Scenario.Pathology("pool-timeout-held", "Max Pool Size=4, Connect Timeout=1: 4 sessions held 2.5 s, a fifth caller times out", FindingKind.PoolTimeout, "Every connection was held", async run =>
        {
            Database db = run.Open("Max Pool Size=4;Connect Timeout=1");
            Session[] held = await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => db.OpenSessionAsync()));
            run.MarkOnset();
            try
            {
                await db.ExecuteAsync("select 1");
                throw new InvalidOperationException("the fifth caller got a connection");
            }
            catch (PoolExhaustedException)
            {
            }

            await Task.Delay(1500);
            foreach (Session s in held)
                await s.DisposeAsync();
        });

        yield return new Scenario("server-not-answering", "the server is paused (SIGSTOP) 4 s; 10 open-per-call callers, Max Pool Size=5, Connect Timeout=1",
            new Dictionary<FindingKind, string> { [FindingKind.PoolTimeout] = "not full of held connections", [FindingKind.ServerUnavailable] = "cannot connect" },
            async run =>
        {
            Database db = run.Open("Max Pool Size=5;Connect Timeout=1");
            await db.ExecuteAsync("select 1");
            run.MarkOnset();
            Server.Pause(true);
            try
            {
                await Task.WhenAll(Enumerable.Range(0, 10).Select(_ => Task.Run(async () =>
                {
                    try
                    {
                        await db.ExecuteAsync("select 1");
                    }
                    catch (PoolExhaustedException)
                    {
                    }
                    catch (Exception error) when (error is not PoolExhaustedException)
                    {
                        Console.Error.WriteLine($"raw: {error.GetType().Name}: {error.Message}");
                    }
                })));
                await Task.Delay(1000);
            }
            finally
            {
                Server.Pause(false);
            }
        });

        yield return Scenario.Pathology("held-too-long", "HeldTooLongThreshold=1 s; a session left open 2 s while calls go on", FindingKind.HeldTooLong, "LeakASession", async run =>
        {
            Database db = run.Open(configure: d => d.HeldTooLongThreshold = TimeSpan.FromSeconds(1));
            Session leaked = await LeakASessionAsync(db);
            run.MarkOnset();
            await ScenarioRun.ForAsync(2, TimeSpan.FromSeconds(2), async _ =>
            {
                await db.ExecuteAsync("select 1");
                await Task.Delay(50);
            });
            await leaked.DisposeAsync();
        });
    }

    private static Task<Session> LeakASessionAsync(Database db) => db.OpenSessionAsync();

    /// <summary>
    /// One request as a web handler writes it (an async method, so a flow of its own): three lookups, then one call that
    /// works for <paramref name="work"/>. Holds of well under a millisecond beside long ones.
    /// </summary>
    private static async Task MixedRequestAsync(Database db, int user, TimeSpan work)
    {
        for (int i = 0; i < 3; i++)
            GC.KeepAlive(await db.QuerySingleAsync<long>("select @user", new { user }));
        await db.ExecuteAsync("do sleep(@seconds)", new { seconds = work.TotalSeconds });
    }

    /// <summary>
    /// Issue 45's shape at Max Pool Size <paramref name="size"/>, then the same load at the size the report advised, on a
    /// pool of its own (its findings are not the scenario's), in three rounds of a second at each size taken in turn:
    /// fails when following the advice kept less than 90 % of the throughput (medians of the rounds: the same size read up
    /// to 30 % apart run to run on a loaded 2-core machine).
    /// </summary>
    private static async Task ShortCallsAsync(ScenarioRun run, int size)
    {
        Database db = run.Open(string.Create(CultureInfo.InvariantCulture, $"Max Pool Size={size}"));
        await ScenarioRun.WarmAsync(db, size);
        double first = await ShortCallsPerSecondAsync(db, TimeSpan.FromSeconds(2));
        int advised = db.GetPoolReport().RecommendedMaxPoolSize ?? size;
        if (advised == size)
        {
            Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"advised {size}: kept, nothing to follow"));
            return;
        }

        var options = new OrseisOptions();
        options.Diagnostics.Detectors = FindingKind.All;
        await using var followed = new Database(
            MySqlConnectorFactory.Instance, Server.With(string.Create(CultureInfo.InvariantCulture, $"Max Pool Size={advised}")), options);
        await ScenarioRun.WarmAsync(followed, Math.Min(advised, 128));
        var atCurrent = new List<double> { first };
        var atAdvised = new List<double>();
        for (int round = 0; round < 3; round++)
        {
            atAdvised.Add(await ShortCallsPerSecondAsync(followed, TimeSpan.FromSeconds(1)));
            if (round < 2)
                atCurrent.Add(await ShortCallsPerSecondAsync(db, TimeSpan.FromSeconds(1)));
        }

        double kept = atAdvised.Order().ElementAt(1) / atCurrent.Order().ElementAt(1);
        Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"followed the advice {size} -> {advised}: kept {kept:0.00} of the throughput (medians of three)"));
        if (kept < 0.9)
        {
            throw new InvalidOperationException(string.Create(
                CultureInfo.InvariantCulture, $"following the advice ({size} -> {advised}) kept {kept:P0} of the throughput (medians of three)"));
        }
    }

    /// <summary>128 async workers, each four <c>select 1</c> back to back, open per call, for <paramref name="duration"/>: statements per second.</summary>
    private static async Task<double> ShortCallsPerSecondAsync(Database db, TimeSpan duration)
    {
        long done = 0;
        var watch = Stopwatch.StartNew();
        await ScenarioRun.ForAsync(128, duration, async _ =>
        {
            for (int i = 0; i < 4; i++)
                await db.ExecuteAsync("select 1");
            Interlocked.Add(ref done, 4);
        });
        return Interlocked.Read(ref done) / watch.Elapsed.TotalSeconds;
    }
}
