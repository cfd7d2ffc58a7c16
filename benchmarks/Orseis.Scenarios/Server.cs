using System.Diagnostics;
using MySqlConnector;

namespace Orseis.Scenarios;

/// <summary>The MariaDB the scenarios run against, and the few server-side levers they pull.</summary>
internal static class Server
{
    public static string ConnectionString =>
        Environment.GetEnvironmentVariable("ORSEIS_MYSQL") is { Length: > 0 } cs
            ? cs
            : throw new ScenarioSetupException("Set ORSEIS_MYSQL to a MariaDB connection string (scripts/mariadb-start.sh prints one).");

    /// <summary>A connection string as an administrator (init_connect needs one; it never runs for such users).</summary>
    public static string AdminConnectionString
    {
        get
        {
            if (Environment.GetEnvironmentVariable("ORSEIS_MYSQL_ADMIN") is { Length: > 0 } admin)
                return admin;
            var builder = new MySqlConnectionStringBuilder(ConnectionString) { UserID = "root", Password = "", Pooling = false };
            return builder.ConnectionString;
        }
    }

    /// <summary>The server's connection string with extra settings (a fresh pool each time: Application Name differs).</summary>
    public static string With(string settings, string? name = null) =>
        ConnectionString.TrimEnd(';') + ";" + settings + $";Application Name={name ?? "orseis-scenario-" + Guid.NewGuid().ToString("N")[..8]}";

    /// <summary>Makes every new connection of a non-administrator sleep first (server-side), or undoes it.</summary>
    public static async Task SlowConnectsAsync(double? seconds)
    {
        await using var connection = new MySqlConnection(AdminConnectionString);
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = seconds is { } s
            ? $"SET GLOBAL init_connect='DO SLEEP({s.ToString(System.Globalization.CultureInfo.InvariantCulture)})'"
            : "SET GLOBAL init_connect=''";
        await command.ExecuteNonQueryAsync();
    }

    /// <summary>Pauses (SIGSTOP) or resumes (SIGCONT) the server process: a server that stops answering.</summary>
    public static void Pause(bool pause)
    {
        string pid = Environment.GetEnvironmentVariable("ORSEIS_MYSQL_PID") ??
                     throw new ScenarioSetupException("Set ORSEIS_MYSQL_PID to the mariadbd process id for the server-not-answering scenario.");
        using Process kill = Process.Start("kill", [pause ? "-STOP" : "-CONT", pid])!;
        kill.WaitForExit();
    }
}
