using System.Globalization;
using MySqlConnector;
using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// A grid of first bursts made into scenarios (<see cref="ColdSizeScenarios"/>, <see cref="ColdHarmScenarios"/>): each
/// point is a shape (async callers, synchronous ones in <c>Task.Run</c>, an ASP.NET Core app under hey), a number of
/// callers, a connect time (0: loopback; otherwise init_connect makes new connections that slow) and a query time. Named
/// <c>[shape-]stem-callers-connects-queryN</c>; a point past the server's connections raises its limit while it runs;
/// <paramref name="Harmful"/> (connect ms, query ms) says whether a point is a slow-connect pathology or a clean twin.
/// </summary>
/// <param name="Stem">The name's middle: "first-burst", "cold".</param>
/// <param name="Points">(shape, callers, connect ms: 0 for loopback, query ms).</param>
/// <param name="SyncWho">How the description says who calls in the sync shape, given the callers.</param>
/// <param name="AsyncBurst">The async shape's body: the run, the scenario's name, callers, connect seconds (null: loopback), the statement.</param>
/// <param name="Harmful">Whether a point (connect ms, query ms) is a pathology.</param>
internal sealed record ColdGrid(
    string Stem, (string Shape, int Callers, int Connect, int Query)[] Points, Func<int, string> SyncWho,
    Func<ScenarioRun, string, int, double?, string, Task> AsyncBurst, Func<int, int, bool> Harmful)
{
    /// <summary>More callers than the test server's 200 connections: the burst raises the server's limit while it runs.</summary>
    private const int ServerConnections = 200;

    public IEnumerable<Scenario> Scenarios()
    {
        foreach ((string shape, int callers, int connect, int query) in Points)
        {
            string prefix = shape == "async" ? "" : shape + "-";
            string connects = connect == 0 ? "loopback" : string.Create(CultureInfo.InvariantCulture, $"connect{connect}");
            string name = string.Create(CultureInfo.InvariantCulture, $"{prefix}{Stem}-{callers}-{connects}-query{query}");
            string who = shape switch
            {
                "async" => $"{callers} async callers at once",
                "sync" => SyncWho(callers),
                _ => $"an ASP.NET Core app, hey with {callers} at once (4 requests each)",
            };
            string description = string.Create(CultureInfo.InvariantCulture,
                $"a fresh process, {who}, each 'do sleep({query / 1000.0})'; ") +
                (connect == 0 ? "loopback connects" : string.Create(CultureInfo.InvariantCulture, $"new connections take {connect} ms (init_connect)"));
            double? seconds = connect == 0 ? null : connect / 1000.0;
            string sql = string.Create(CultureInfo.InvariantCulture, $"do sleep({query / 1000.0})");
            Func<ScenarioRun, Task> burst = shape switch
            {
                "async" => run => AsyncBurst(run, name, callers, seconds, sql),
                "sync" => run => ColdScenarios.SyncBurstAsync(run, callers, seconds, sql),
                _ => run => ColdScenarios.WebBurstAsync(run, callers, seconds, sql),
            };
            Func<ScenarioRun, Task> body = callers < ServerConnections
                ? burst
                : run => WithServerConnectionsAsync(callers + 50, () => burst(run));
            yield return Harmful(connect, query)
                ? Scenario.Pathology(name, description, FindingKind.SlowOpen, "Cold start", body)
                : Scenario.CleanOne(name, description, body);
        }
    }

    /// <summary>Runs <paramref name="body"/> with the server's max_connections raised to <paramref name="limit"/>, then restores it.</summary>
    internal static async Task WithServerConnectionsAsync(int limit, Func<Task> body)
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
