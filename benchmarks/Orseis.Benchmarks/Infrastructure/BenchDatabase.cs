using System.Data.Common;
using Microsoft.Data.Sqlite;
using Npgsql;

namespace Orseis.Benchmarks.Infrastructure;

/// <summary>
/// The database of one benchmark class: the provider's factory and connection strings for each pooling variant.
/// For SQLite it is a fresh temporary file (deleted on dispose); for servers it is the database named by the
/// provider's environment variable.
/// </summary>
public sealed class BenchDatabase : IDisposable
{
    private readonly string? _sqliteFile;

    private BenchDatabase(BenchProvider provider, DbProviderFactory factory, string connectionString, string? sqliteFile)
    {
        Provider = provider;
        Factory = factory;
        ConnectionString = connectionString;
        _sqliteFile = sqliteFile;
    }

    /// <summary>The provider.</summary>
    public BenchProvider Provider { get; }

    /// <summary>The provider's ADO.NET factory.</summary>
    public DbProviderFactory Factory { get; }

    /// <summary>The pooled connection string (the provider's default pooling).</summary>
    public string ConnectionString { get; }

    /// <summary>The same connection string with <c>Pooling=false</c>: every open is a real open.</summary>
    public string Unpooled => With("Pooling", false);

    /// <summary>
    /// The pooled connection string without the provider's reset of a pooled connection: PostgreSQL's
    /// <c>No Reset On Close=true</c> (no <c>DISCARD ALL</c>) or the MySQL providers' <c>Connection Reset=false</c> (no
    /// reset round trip). Null for providers without such a setting.
    /// </summary>
    public string? NoResetOnClose => Provider switch
    {
        BenchProvider.Postgres => With("No Reset On Close", true),
        BenchProvider.MySql or BenchProvider.MySqlData => With("Connection Reset", false),
        _ => null,
    };

    /// <summary>Creates the database for the current provider (<see cref="BenchProviders.Current"/>).</summary>
    public static BenchDatabase Create() => Create(BenchProviders.Current);

    /// <summary>Creates the database for <paramref name="provider"/>.</summary>
    public static BenchDatabase Create(BenchProvider provider)
    {
        DbProviderFactory factory = ProviderFactories.Factory(provider);
        if (provider != BenchProvider.Sqlite)
            return new BenchDatabase(provider, factory, ProviderFactories.ServerConnectionString(provider), null);

        string file = Path.Combine(Path.GetTempPath(), $"orseis-bench-{Environment.ProcessId}-{Guid.NewGuid():N}.db");
        var builder = new SqliteConnectionStringBuilder { DataSource = file, Pooling = true };
        return new BenchDatabase(provider, factory, builder.ConnectionString, file);
    }

    /// <summary>A data source over <paramref name="connectionString"/> (the same kind Orseis' <see cref="Database"/> creates).</summary>
    public DbDataSource CreateDataSource(string connectionString) => Factory.CreateDataSource(connectionString);

    /// <summary>The pooled connection string with one more setting.</summary>
    public string With(string key, object value)
    {
        DbConnectionStringBuilder builder = Factory.CreateConnectionStringBuilder() ?? new DbConnectionStringBuilder();
        builder.ConnectionString = ConnectionString;
        builder[key] = value;
        return builder.ConnectionString;
    }

    /// <summary>Empties the provider's pools and deletes the temporary SQLite file, if any.</summary>
    public void Dispose()
    {
        switch (Provider)
        {
            case BenchProvider.Sqlite:
                SqliteConnection.ClearAllPools();
                break;
            case BenchProvider.Postgres:
                NpgsqlConnection.ClearAllPools();
                break;
            case BenchProvider.MySql:
                MySqlConnector.MySqlConnection.ClearAllPools();
                break;
            case BenchProvider.MySqlData:
                MySql.Data.MySqlClient.MySqlConnection.ClearAllPools();
                break;
        }

        if (_sqliteFile is not null)
        {
            foreach (string path in new[] { _sqliteFile, _sqliteFile + "-journal", _sqliteFile + "-wal", _sqliteFile + "-shm" })
                File.Delete(path);
        }
    }
}
