using System.Diagnostics;
using System.Globalization;
using System.Net;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;
using Orseis.Diagnostics;
using Orseis.Scenarios.ColdStart;

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

        foreach (Scenario tiny in TinyFirstBursts())
            yield return tiny;

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
    /// A fresh process's first burst of tiny requests (one <c>select 1</c> each): a console worker running synchronous calls
    /// in <c>Task.Run</c> (8 and 32 at once; 128 blocking calls on two cores starve the thread pool, a finding of its own)
    /// or async calls (128), and an ASP.NET Core app loaded by hey, at 8, 32 and 128 at once. Over loopback their connects
    /// are slow only because the process is starting (the JIT of every path, the thread pool growing): silent. The same
    /// shapes on slow connects (150 ms, init_connect) are cold starts. The 128 async calls (<see cref="TinyAsyncBurst"/>):
    /// the same 128 loopback connects on a second fresh pool of the warm process cost 1.3 to 2.7x a warm burst, so the
    /// server's connects are not the cause, the process's start-up is (docs/results/diagnostics/issue-45-gaps-2026-11-30.md);
    /// the rule tells it by the process never sitting idle while they connect
    /// (docs/results/diagnostics/cold-start-rule-2026-11-30b.md).
    /// </summary>
    private static IEnumerable<Scenario> TinyFirstBursts()
    {
        foreach (int n in new[] { 8, 32 })
            yield return Scenario.CleanOne($"tiny-first-burst-sync-{n}", $"a fresh process, {n} synchronous 'select 1' calls at once in Task.Run, then 2 s of the same; loopback connects", run => SyncBurstAsync(run, n, null));
        yield return Scenario.CleanOne("tiny-first-burst-async-128", "a fresh process, 128 async 'select 1' calls at once, then 2 s of the same; loopback connects", run => TinyAsyncBurst.RunAsync(run, "tiny-first-burst-async-128", warmed: false));
        yield return Scenario.CleanOne("tiny-first-burst-async-128-warmed", "a fresh process, its pool warmed with WarmUpAsync(128) at start-up, then 128 async 'select 1' calls at once, then 2 s of the same; loopback connects", run => TinyAsyncBurst.RunAsync(run, "tiny-first-burst-async-128-warmed", warmed: true));
        foreach (int n in new[] { 8, 32, 128 })
            yield return Scenario.CleanOne($"tiny-first-burst-web-{n}", $"a fresh ASP.NET Core app, hey with {n} at once, each request one 'select 1'; loopback connects", run => WebBurstAsync(run, n, null));

        yield return Scenario.Pathology("tiny-first-burst-sync-32-connect150", "a fresh process, 32 synchronous 'select 1' calls at once in Task.Run; new connections take 150 ms (init_connect)", FindingKind.SlowOpen, "Cold start", run => SyncBurstAsync(run, 32, 0.15));
        yield return Scenario.Pathology("tiny-first-burst-web-8-connect150", "a fresh ASP.NET Core app, hey with 8 at once, each request one 'select 1'; new connections take 150 ms", FindingKind.SlowOpen, "Cold start", run => WebBurstAsync(run, 8, 0.15));
        yield return Scenario.Pathology("tiny-first-burst-web-128-connect150", "a fresh ASP.NET Core app, hey with 128 at once, each request one 'select 1'; new connections take 150 ms", FindingKind.SlowOpen, "Cold start", run => WebBurstAsync(run, 128, 0.15));
    }

    /// <summary>
    /// <paramref name="callers"/> synchronous calls started together in <c>Task.Run</c> (the worker raises the thread pool's
    /// minimum to its own concurrency, as a worker designed for it does), then the same for 2 s.
    /// </summary>
    internal static async Task SyncBurstAsync(ScenarioRun run, int callers, double? connect, string sql = "select 1")
    {
        ThreadPool.GetMinThreads(out int workers, out int io);
        ThreadPool.SetMinThreads(Math.Max(workers, callers + 4), io);
        Database db = run.Open(callers > 100 ? $"Max Pool Size={callers}" : "");
        Func<Task> body = () =>
        {
            run.MarkOnset(); // the set-up is done (connects made slow): the first calls begin
            return ScenarioRun.ForAsync(callers, TimeSpan.FromSeconds(2), _ => Task.Run(() =>
            {
                ScenarioRun.NotingConnectTimeouts(() =>
                {
                    if (sql == "select 1")
                        db.Scalar<long>(sql);
                    else
                        db.Execute(sql);
                });
            }));
        };
        if (connect is { } seconds)
            await WithSlowConnectsAsync(body, seconds);
        else
            await body();
    }

    /// <summary>
    /// An ASP.NET Core app on a free loopback port, one endpoint making one call, loaded by hey with <paramref name="callers"/>
    /// at once, 4 requests each; every answer checked.
    /// </summary>
    internal static async Task WebBurstAsync(ScenarioRun run, int callers, double? connect, string sql = "select 1")
    {
        // As the other web scenarios: without it the thread pool's slow start starves the app beside the CPU hog.
        ThreadPool.GetMinThreads(out int workers, out int io);
        ThreadPool.SetMinThreads(Math.Max(workers, 16), Math.Max(io, 16));
        Database db = run.Open(callers > 100 ? $"Max Pool Size={callers}" : "");
        WebApplicationBuilder builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(k => k.Listen(IPAddress.Loopback, 0));
        await using WebApplication app = builder.Build();
        app.MapGet("/work", async context =>
        {
            long answer = -1;
            await ScenarioRun.NotingConnectTimeoutsAsync(async () =>
                answer = sql == "select 1" ? await db.QuerySingleAsync<long>(sql) : await db.ExecuteAsync(sql));
            await context.Response.WriteAsync(answer.ToString(CultureInfo.InvariantCulture));
        });
        await app.StartAsync();
        try
        {
            var url = new Uri(new Uri(app.Urls.First()), "/work");
            Func<Task> body = async () =>
            {
                run.MarkOnset(); // the app is up: its first requests begin
                HeyBurst burst = await HeyBurst.FireAsync(url, callers * 4, callers, TimeSpan.FromSeconds(30));
                if (burst.Ok != callers * 4)
                    throw new InvalidOperationException($"hey: {burst.Ok} of {callers * 4} requests answered 200");
            };
            if (connect is { } seconds)
                await WithSlowConnectsAsync(body, seconds);
            else
                await body();
        }
        finally
        {
            await app.StopAsync();
        }
    }

    /// <summary>
    /// The first burst of <paramref name="callers"/>, then the same again on the now warm pool, each call timed: writes
    /// what the cold start cost each request to stderr (<c>run NAME</c> shows it).
    /// </summary>
    internal static async Task HarmAsync(string name, int callers, Func<Task> call)
    {
        double cold = await TimedBurstAsync(callers, call);
        double warm = await TimedBurstAsync(callers, call);
        Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"harm {name}: the first {callers} requests took {cold:0.0} ms on average, the same burst warm {warm:0.0} ms: {cold / warm:0.00}x"));
    }

    /// <summary>A burst of <paramref name="callers"/> at once (<see cref="AllAtOnceAsync"/>); returns the mean time of a call, in ms.</summary>
    internal static async Task<double> TimedBurstAsync(int callers, Func<Task> call)
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
            await ScenarioRun.NotingConnectTimeoutsAsync(call); // a connect lost at the server's listen queue: noted, the run's truth
        }))];
        await Task.Delay(100);
        go.SetResult();
        await Task.WhenAll(all);
    }

    internal static async Task WithSlowConnectsAsync(Func<Task> body, double seconds = 0.3)
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
