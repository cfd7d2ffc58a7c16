using System.Globalization;
using MySqlConnector;
using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// First bursts at sizes and shapes the cold-start rule was not tuned on (issue 45, part 2: "named at every size
/// tried"): 4, 10, 25, 50 and 300 callers; connects of 40, 80, 150 and 300 ms (init_connect); queries of 5, 20, 100 and
/// 500 ms; async callers, synchronous ones in <c>Task.Run</c>, and an ASP.NET Core app under hey. A burst is harmful when
/// its connects are past <c>SlowOpenFloor</c> (100 ms) and at least as long as the work (the requests took twice their
/// own work or more); its clean twins are the same shape over loopback connects (a fresh process's own start-up), under
/// the floor (40 and 80 ms), or outweighed by the work (150 ms connects before 500 ms queries: 1.3x).
/// </summary>
internal static class ColdHarmScenarios
{
    /// <summary>More callers than the test server's 200 connections: the burst raises the server's limit while it runs.</summary>
    private const int ServerConnections = 200;

    public static IEnumerable<Scenario> All()
    {
        // (shape, callers, connect ms: 0 for loopback, query ms)
        (string Shape, int Callers, int Connect, int Query)[] grid =
        [
            ("async", 4, 150, 20),
            ("async", 10, 300, 5),
            ("async", 50, 300, 100),
            ("async", 300, 150, 20),
            ("sync", 10, 150, 20),
            ("sync", 25, 300, 100),
            ("web", 4, 300, 5),
            ("web", 25, 150, 100),
            ("async", 50, 0, 100),
            ("async", 300, 0, 20),
            ("web", 25, 0, 5),
            ("async", 10, 40, 5),
            ("async", 25, 80, 20),
            ("async", 10, 150, 500),
        ];
        foreach ((string shape, int callers, int connect, int query) in grid)
        {
            string prefix = shape == "async" ? "" : shape + "-";
            string connects = connect == 0 ? "loopback" : string.Create(CultureInfo.InvariantCulture, $"connect{connect}");
            string name = string.Create(CultureInfo.InvariantCulture, $"{prefix}cold-{callers}-{connects}-query{query}");
            string who = shape switch
            {
                "async" => $"{callers} async callers at once",
                "sync" => $"{callers} synchronous callers at once in Task.Run, then 2 s of the same",
                _ => $"an ASP.NET Core app, hey with {callers} at once (4 requests each)",
            };
            string description = string.Create(CultureInfo.InvariantCulture,
                $"a fresh process, {who}, each 'do sleep({query / 1000.0})'; ") +
                (connect == 0 ? "loopback connects" : string.Create(CultureInfo.InvariantCulture, $"new connections take {connect} ms (init_connect)"));
            double? seconds = connect == 0 ? null : connect / 1000.0;
            string sql = string.Create(CultureInfo.InvariantCulture, $"do sleep({query / 1000.0})");
            Func<ScenarioRun, Task> burst = shape switch
            {
                "async" => run => AsyncBurstAsync(run, name, callers, seconds, sql),
                "sync" => run => ColdScenarios.SyncBurstAsync(run, callers, seconds, sql),
                _ => run => ColdScenarios.WebBurstAsync(run, callers, seconds, sql),
            };
            Func<ScenarioRun, Task> body = callers < ServerConnections
                ? burst
                : run => WithServerConnectionsAsync(callers + 50, () => burst(run));
            bool harmful = connect > 100 && connect >= query;
            yield return harmful
                ? Scenario.Pathology(name, description, FindingKind.SlowOpen, "Cold start", body)
                : Scenario.CleanOne(name, description, body);
        }
    }

    /// <summary>
    /// <paramref name="callers"/> async callers at once on a fresh pool with room for all, then the same burst warm: what
    /// the cold start cost them is written to stderr (<see cref="ColdScenarios.HarmAsync"/>).
    /// </summary>
    private static async Task AsyncBurstAsync(ScenarioRun run, string name, int callers, double? connect, string sql)
    {
        string settings = callers > 100 ? string.Create(CultureInfo.InvariantCulture, $"Max Pool Size={callers}") : "";
        Database db = run.Open(settings);
        Func<Task> body = () => ColdScenarios.HarmAsync(name, callers, () => db.ExecuteAsync(sql));
        if (connect is { } seconds)
            await ColdScenarios.WithSlowConnectsAsync(body, seconds);
        else
            await body();
    }

    /// <summary>Runs <paramref name="body"/> with the server's max_connections raised to <paramref name="limit"/>, then restores it.</summary>
    private static async Task WithServerConnectionsAsync(int limit, Func<Task> body)
    {
        await SetMaxConnectionsAsync(limit);
        try
        {
            await body();
        }
        finally
        {
            await MySqlConnection.ClearAllPoolsAsync();
            await SetMaxConnectionsAsync(ServerConnections);
        }
    }

    private static async Task SetMaxConnectionsAsync(int limit)
    {
        await using var connection = new MySqlConnection(Server.AdminConnectionString);
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = string.Create(CultureInfo.InvariantCulture, $"SET GLOBAL max_connections={limit}");
        await command.ExecuteNonQueryAsync();
    }
}
