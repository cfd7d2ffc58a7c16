using MySqlConnector;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// First bursts at sizes no earlier scenario used, to prove the cold-start rule beyond the ones it was tuned on: 16,
/// 48, 96 and 180 callers (180, not 200: the test server allows 200 connections, the scenario's own admin connection
/// among them), connects of 150 and 300 ms (init_connect), queries of 20 and 100 ms, callers that are async, synchronous
/// in <c>Task.Run</c>, or an ASP.NET Core app under hey. Each slow-connect burst has a clean twin over loopback connects
/// (a fresh process: its connects wait for its own start-up, not for the server), and one burst on 60 ms connects stays
/// under <c>SlowOpenFloor</c>. Async bursts print what the cold start cost (<see cref="ColdScenarios.HarmAsync"/>) and
/// what a second fresh pool of the same process costs once the process is warm (<see cref="SecondPoolAsync"/>).
/// </summary>
internal static class ColdSizeScenarios
{
    public static IEnumerable<Scenario> All() => new ColdGrid(
        "first-burst",
        [
            ("async", 16, 150, 20),
            ("async", 48, 300, 100),
            ("async", 96, 150, 100),
            ("async", 180, 300, 20),
            ("sync", 16, 300, 20),
            ("sync", 48, 150, 100),
            ("web", 16, 300, 20),
            ("web", 48, 150, 20),
            ("web", 96, 300, 100),
            ("async", 16, 0, 20),
            ("async", 96, 0, 20),
            ("async", 180, 0, 100),
            ("sync", 48, 0, 20),
            ("web", 48, 0, 20),
            ("web", 96, 0, 100),
            ("async", 48, 60, 100),
        ],
        callers => $"{callers} synchronous callers at once in Task.Run",
        AsyncBurstAsync,
        // Harmful when the connects are past the floor: 150 ms on 100 ms queries is 2.5x, the rest more.
        Harmful: (connect, _) => connect > 100).Scenarios();

    /// <summary>
    /// <paramref name="callers"/> async callers at once on a fresh pool (room for all), what that cost them against the
    /// same burst warm, then the same on a second fresh pool of the now warm process.
    /// </summary>
    private static async Task AsyncBurstAsync(ScenarioRun run, string name, int callers, double? connect, string sql)
    {
        Database db = run.Open(callers > 100 ? $"Max Pool Size={callers}" : "");
        Func<Task> body = async () =>
        {
            run.MarkOnset(); // the set-up is done (connects made slow): the first burst begins
            await ColdScenarios.HarmAsync(name, callers, () => db.ExecuteAsync(sql));
            if (callers <= 100) // two pools of 180 pass the server's 200 connections, even with the first one cleared
                await SecondPoolAsync(name, callers, sql);
        };
        if (connect is { } seconds)
            await ColdScenarios.WithSlowConnectsAsync(body, seconds);
        else
            await body();
    }

    /// <summary>
    /// The same burst on a second pool (no detectors: nothing it does is this run's finding) once the process is warm: what
    /// the pool's cold start costs without the process's own, against that pool warm; written to stderr.
    /// </summary>
    private static async Task SecondPoolAsync(string name, int callers, string sql)
    {
        await MySqlConnection.ClearAllPoolsAsync(); // the first pool's idle connections: room on the server for the second's
        await using var second = new Database(MySqlConnectorFactory.Instance,
            Server.With(callers > 100 ? $"Max Pool Size={callers}" : "", "orseis-second-pool"), new OrseisOptions());
        await ColdScenarios.HarmAsync(name + " (second pool, warm process)", callers, () => second.ExecuteAsync(sql));
    }
}
