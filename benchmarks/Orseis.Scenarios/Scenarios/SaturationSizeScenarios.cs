using System.Globalization;
using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// Saturation at sizes the rule was not tuned on (issue 45; the suite's were Max Pool Size 10, 5 and 16, async): real
/// queueing for pools of 5, 12 and 40 with two to four times as many callers, async and synchronous (in <c>Task.Run</c>,
/// the thread pool's minimum raised to the callers as a worker designed for it does), holds of 5 to 200 ms; and the
/// loads that look like it but never wait for a connection the pool cannot give: a first wave of exactly Max Pool Size
/// callers on slow connects (every caller inside Open at once, a cold start: the cold-start finding names it), and as many
/// callers as Max Pool Size on a warm pool. Each load runs 3 s (the pool-size advice that comes with a real saturation
/// took up to 2 s); a caller calls again as soon as its call ends, each call a request of its own.
/// </summary>
internal static class SaturationSizeScenarios
{
    private const string Queueing = "queueing for the pool";

    public static IEnumerable<Scenario> All()
    {
        foreach ((string shape, int max, int callers, int holdMs) in Saturated)
        {
            string name = string.Create(CultureInfo.InvariantCulture, $"{Prefix(shape)}saturation-size-{max}-callers{callers}-hold{holdMs}");
            string description = string.Create(CultureInfo.InvariantCulture,
                $"Max Pool Size={max}, warm; {Who(shape, callers)}, each 'do sleep({holdMs / 1000.0})', 3 s");
            // A pool that callers queue for, on the server's time (sleep): the advice is to raise it.
            yield return new Scenario(name, description,
                new Dictionary<FindingKind, string> { [FindingKind.Saturation] = Queueing, [FindingKind.PoolSize] = "raise Max Pool Size to" },
                run => LoadAsync(run, shape, max, callers, holdMs, warm: true, connect: null));
        }

        foreach ((string shape, int max, int holdMs) in FirstWaves)
        {
            string name = string.Create(CultureInfo.InvariantCulture, $"{Prefix(shape)}saturation-lookalike-wave-{max}-connect115-hold{holdMs}");
            string description = string.Create(CultureInfo.InvariantCulture,
                $"a fresh pool, Max Pool Size={max}; {Who(shape, max)} (as many as the pool's maximum), each 'do sleep({holdMs / 1000.0})', 3 s; new connections take 115 ms (init_connect)");
            yield return Scenario.Pathology(name, description, FindingKind.SlowOpen, "Cold start",
                run => LoadAsync(run, shape, max, max, holdMs, warm: false, connect: 0.115));
        }

        foreach ((string shape, int max, int holdMs) in WarmFull)
        {
            string name = string.Create(CultureInfo.InvariantCulture, $"{Prefix(shape)}saturation-lookalike-warm-{max}-hold{holdMs}");
            string description = string.Create(CultureInfo.InvariantCulture,
                $"Max Pool Size={max}, warm; {Who(shape, max)} (as many as the pool's maximum), each 'do sleep({holdMs / 1000.0})', 3 s");
            yield return Scenario.CleanOne(name, description, run => LoadAsync(run, shape, max, max, holdMs, warm: true, connect: null));
        }
    }

    /// <summary>(shape, Max Pool Size, callers, hold ms): 2 to 4 times as many callers as connections.</summary>
    private static readonly (string Shape, int Max, int Callers, int HoldMs)[] Saturated =
    [
        ("async", 5, 20, 50),
        ("sync", 5, 10, 200),
        ("async", 12, 36, 5),
        ("sync", 12, 48, 20),
        ("async", 40, 80, 100),
        ("sync", 40, 120, 10),
    ];

    /// <summary>(shape, Max Pool Size = callers, hold ms) on a fresh pool with connects of 115 ms.</summary>
    private static readonly (string Shape, int Max, int HoldMs)[] FirstWaves =
    [
        ("async", 12, 10),
        ("sync", 12, 10),
        ("async", 40, 10),
        ("sync", 40, 10),
    ];

    /// <summary>(shape, Max Pool Size = callers, hold ms) on a warm pool.</summary>
    private static readonly (string Shape, int Max, int HoldMs)[] WarmFull =
    [
        ("async", 12, 5),
        ("sync", 40, 10),
        ("sync", 5, 50),
    ];

    private static string Prefix(string shape) => shape == "async" ? "" : shape + "-";

    private static string Who(string shape, int callers) => shape == "async"
        ? string.Create(CultureInfo.InvariantCulture, $"{callers} async callers")
        : string.Create(CultureInfo.InvariantCulture, $"{callers} synchronous callers in Task.Run");

    /// <summary>
    /// <paramref name="callers"/> callers on a pool of <paramref name="max"/>, each calling again as soon as its call ends,
    /// for 3 s; the pool warmed to its maximum first when <paramref name="warm"/>, and new connections made to take
    /// <paramref name="connect"/> seconds when given.
    /// </summary>
    private static async Task LoadAsync(ScenarioRun run, string shape, int max, int callers, int holdMs, bool warm, double? connect)
    {
        if (shape == "sync")
        {
            ThreadPool.GetMinThreads(out int workers, out int io);
            ThreadPool.SetMinThreads(Math.Max(workers, callers + 4), io);
        }

        Database db = run.Open(string.Create(CultureInfo.InvariantCulture, $"Max Pool Size={max}"));
        if (warm)
            await ScenarioRun.WarmAsync(db, max);
        string sql = string.Create(CultureInfo.InvariantCulture, $"do sleep({holdMs / 1000.0})");
        Func<Task> body = () =>
        {
            run.MarkOnset(); // the set-up is done (warmed, or connects made slow): the load begins
            // Each call a request of its own, as a server's: a flow of its own (the async lambda's), so the loop is no churn.
            return ScenarioRun.ForAsync(callers, TimeSpan.FromSeconds(3), shape == "sync"
                ? _ => Task.Run(() => db.Execute(sql))
                : async _ => await db.ExecuteAsync(sql));
        };
        if (connect is { } seconds)
            await ColdScenarios.WithSlowConnectsAsync(body, seconds);
        else
            await body();
    }
}
