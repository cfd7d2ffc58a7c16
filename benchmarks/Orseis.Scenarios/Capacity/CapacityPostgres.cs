using Npgsql;
using Orseis.Testing;

namespace Orseis.Scenarios.Capacity;

/// <summary>
/// The capacity study's PostgreSQL: one of its own (scripts/pg-start.sh: a free loopback port, a temporary data directory,
/// <c>max_connections=200</c>), stopped with scripts/pg-stop.sh on dispose. The app talks to it through Npgsql.
/// </summary>
internal sealed class CapacityPostgres : IDisposable
{
    private readonly string _state = Path.Combine(Path.GetTempPath(), $"orseis-capacity-pg-{Environment.ProcessId}-{Guid.NewGuid():N}.env");

    public CapacityPostgres() =>
        ConnectionString = RepositoryScripts.Run("pg-start.sh", TimeSpan.FromMinutes(3), null, _state).Trim().Split('\n')[^1].Trim();

    /// <summary>The connection string scripts/pg-start.sh printed.</summary>
    public string ConnectionString { get; }

    public void Dispose() => RepositoryScripts.Run("pg-stop.sh", TimeSpan.FromMinutes(1), null, _state);

    /// <summary>The server's client backends (a process each), less this one's; PostgreSQL has no thread pool: 0.</summary>
    public static async Task<ServerThreads> ThreadsAsync(string connectionString)
    {
        var builder = new NpgsqlConnectionStringBuilder(connectionString) { Pooling = false };
        await using var connection = new NpgsqlConnection(builder.ConnectionString);
        await connection.OpenAsync();
        await using NpgsqlCommand command = connection.CreateCommand();
        command.CommandText = "select count(*) from pg_stat_activity where backend_type = 'client backend'";
        long backends = (long)(await command.ExecuteScalarAsync())!;
        return new ServerThreads(backends - 1, 0);
    }
}
