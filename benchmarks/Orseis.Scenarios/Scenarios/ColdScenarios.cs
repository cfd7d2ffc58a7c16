using System.Diagnostics;
using System.Globalization;
using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// Cold pools: more callers than warm connections while new connections are slow on the server (init_connect sleeps
/// 0.3 s for every new connection of the test user, or as long as a scenario says), both on a fresh pool and on one the
/// provider pruned while idle.
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

        foreach (Scenario harm in HarmGrid())
            yield return harm;

        yield return Scenario.CleanOne("first-burst-fast-connects", "a fresh pool, 60 async callers at once, each 0.2 s; connects as fast as loopback makes them", async run =>
        {
            Database db = run.Open();
            await HarmAsync("first-burst-fast-connects", 60, () => db.ExecuteAsync("do sleep(0.2)"));
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
            run.MarkOnset();
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

    /// <summary>
    /// First bursts on a fresh pool at sizes the rule was not tuned on: callers, connect time (init_connect) and query
    /// time. Harmful (a cold start) when the opens took more than <c>SlowOpenFloor</c> each and at least half the
    /// requests' time (they took twice their own work); harmless otherwise. No harmful one below the floor: at 50 ms
    /// connects the verdict would be the machine's, whose load alone takes such connects past it. Each run also
    /// measures the harm itself (every caller timed, then the same burst again on the warm pool) and writes it to stderr.
    /// </summary>
    private static IEnumerable<Scenario> HarmGrid()
    {
        // (callers, connect s, query s, harmful)
        (int Callers, double Connect, double Query, bool Harmful)[] grid =
        [
            (25, 0.15, 0.1, true), // the burst: 2.8x
            (10, 0.15, 0.01, true),
            (120, 0.15, 0.1, true),
            (120, 0.3, 0.01, true),
            (25, 0.15, 0.5, false), // 1.3x
            (60, 0.3, 1, false), // 1.3x: 0.3 s more on requests of a second
            (60, 0.05, 0.5, false), // 1.1x, and under the floor
            (10, 0.05, 0.5, false),
        ];
        foreach ((int callers, double connect, double query, bool harmful) in grid)
        {
            string name = string.Create(CultureInfo.InvariantCulture, $"first-burst-{callers}-connect{connect * 1000:0}-query{query * 1000:0}");
            string description = string.Create(CultureInfo.InvariantCulture,
                $"a fresh pool, {callers} async callers at once, each {query * 1000:0} ms; new connections take {connect * 1000:0} ms (init_connect)");
            Func<ScenarioRun, Task> body = async run =>
            {
                Database db = run.Open(callers > 100 ? $"Max Pool Size={callers}" : ""); // room for all: nobody queues
                string sql = string.Create(CultureInfo.InvariantCulture, $"do sleep({query})");
                await WithSlowConnectsAsync(() => HarmAsync(name, callers, () => db.ExecuteAsync(sql)), connect);
            };
            yield return harmful
                ? Scenario.Pathology(name, description, FindingKind.SlowOpen, "Cold start", body)
                : Scenario.CleanOne(name, description, body);
        }
    }

    /// <summary>
    /// The first burst of <paramref name="callers"/>, then the same again on the now warm pool, each call timed: writes
    /// what the cold start cost each request to stderr (<c>run NAME</c> shows it).
    /// </summary>
    private static async Task HarmAsync(string name, int callers, Func<Task> call)
    {
        double cold = await TimedBurstAsync(callers, call);
        double warm = await TimedBurstAsync(callers, call);
        Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"harm {name}: the first {callers} requests took {cold:0.0} ms on average, the same burst warm {warm:0.0} ms: {cold / warm:0.00}x"));
    }

    /// <summary>A burst of <paramref name="callers"/> at once (<see cref="AllAtOnceAsync"/>); returns the mean time of a call, in ms.</summary>
    private static async Task<double> TimedBurstAsync(int callers, Func<Task> call)
    {
        long ticks = 0;
        await AllAtOnceAsync(callers, async () =>
        {
            long started = Stopwatch.GetTimestamp();
            await call();
            Interlocked.Add(ref ticks, Stopwatch.GetTimestamp() - started);
        });
        return TimeSpan.FromTicks(ticks * TimeSpan.TicksPerSecond / Stopwatch.Frequency).TotalMilliseconds / callers;
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

    private static async Task WithSlowConnectsAsync(Func<Task> body, double seconds = 0.3)
    {
        await Server.SlowConnectsAsync(seconds);
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
