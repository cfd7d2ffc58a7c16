using Microsoft.Data.Sqlite;

namespace Orseis.Tests.Infrastructure;

/// <summary>A SQLite database in a temporary file (so pooled connections share it), deleted on dispose.</summary>
public sealed class SqliteFile : IDisposable
{
    public SqliteFile()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"orseis-{Guid.NewGuid():N}.db");
        ConnectionString = new SqliteConnectionStringBuilder { DataSource = Path, Pooling = true }.ToString();
    }

    public string Path { get; }

    public string ConnectionString { get; }

    public Database Open(ExecutionMode mode = ExecutionMode.OpenPerCall, Action<OrseisOptions>? configure = null)
    {
        var options = new OrseisOptions { Mode = mode };
        configure?.Invoke(options);
        return new Database(SqliteFactory.Instance, ConnectionString, options);
    }

    public void Dispose()
    {
        // Only this file's pool: ClearAllPools would also dispose the idle connections of the other test classes' files,
        // which run in parallel, and one being handed out meanwhile failed its next statement (sqlite3 disposed).
        using (var connection = new SqliteConnection(ConnectionString))
            SqliteConnection.ClearPool(connection);
        foreach (string file in new[] { Path, Path + "-wal", Path + "-shm", Path + "-journal" })
        {
            try
            {
                File.Delete(file);
            }
            catch (IOException)
            {
            }
        }
    }
}
