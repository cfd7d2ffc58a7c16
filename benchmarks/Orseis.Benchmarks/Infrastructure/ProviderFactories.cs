using System.Data.Common;
using Microsoft.Data.Sqlite;
using Npgsql;

namespace Orseis.Benchmarks.Infrastructure;

/// <summary>
/// Finds the ADO.NET factory and server connection string of a provider, or says why it cannot. SQL Server's and
/// MySqlConnector's factories are loaded by reflection because neither package can be restored from this machine's
/// package mirror; the code paths exist so the study runs wherever the assemblies are present. Without MySqlConnector,
/// MariaDB/MySQL runs through Oracle's MySql.Data 8.0.16, which the mirror does serve.
/// </summary>
public static class ProviderFactories
{
    /// <summary>The environment variable with an Npgsql connection string.</summary>
    public const string PostgresVariable = "ORSEIS_POSTGRES";

    /// <summary>The environment variable with a SqlClient connection string.</summary>
    public const string SqlServerVariable = "ORSEIS_SQLSERVER";

    /// <summary>The environment variable with a MySQL connection string (keys MySqlConnector and MySql.Data share).</summary>
    public const string MySqlVariable = "ORSEIS_MYSQL";

    private const string SqlClientFactoryType = "Microsoft.Data.SqlClient.SqlClientFactory, Microsoft.Data.SqlClient";
    private const string MySqlConnectorFactoryType = "MySqlConnector.MySqlConnectorFactory, MySqlConnector";

    /// <summary>Returns null when <paramref name="provider"/> can run here, otherwise the reason it cannot.</summary>
    public static string? WhyUnavailable(BenchProvider provider) => provider switch
    {
        BenchProvider.Postgres when string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable(PostgresVariable)) =>
            $"{PostgresVariable} is not set; start a private server with `scripts/pg-start.sh STATEFILE` and export its output as {PostgresVariable}.",
        BenchProvider.SqlServer when string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable(SqlServerVariable)) =>
            $"{SqlServerVariable} is not set (a SqlClient connection string to a SQL Server is needed).",
        BenchProvider.SqlServer when Load(SqlClientFactoryType) is null =>
            $"the type '{SqlClientFactoryType}' could not be loaded: Microsoft.Data.SqlClient is not in the output " +
            "(this machine's package mirror does not serve its dependencies). Copy the assembly next to the benchmarks or reference the package.",
        BenchProvider.MySql when string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable(MySqlVariable)) =>
            $"{MySqlVariable} is not set; start a private MariaDB with `scripts/mariadb-start.sh STATEFILE` and export its output as {MySqlVariable}.",
        _ => null,
    };

    /// <summary>The provider's factory.</summary>
    /// <exception cref="InvalidOperationException">The provider is unavailable; the message says why.</exception>
    public static DbProviderFactory Factory(BenchProvider provider) => provider switch
    {
        BenchProvider.Sqlite => SqliteFactory.Instance,
        BenchProvider.Postgres => NpgsqlFactory.Instance,
        BenchProvider.MySql => MySqlConnector ?? MySql.Data.MySqlClient.MySqlClientFactory.Instance,
        _ => Load(SqlClientFactoryType) ?? throw new InvalidOperationException(WhyUnavailable(provider)),
    };

    /// <summary>MySqlConnector's factory when its assembly is in the output, else null (and MySql.Data is used).</summary>
    public static DbProviderFactory? MySqlConnector => Load(MySqlConnectorFactoryType);

    /// <summary>The server connection string of a networked provider, from its environment variable.</summary>
    /// <exception cref="InvalidOperationException">The variable is not set.</exception>
    public static string ServerConnectionString(BenchProvider provider)
    {
        string variable = provider switch
        {
            BenchProvider.Postgres => PostgresVariable,
            BenchProvider.MySql => MySqlVariable,
            _ => SqlServerVariable,
        };
        string? value = Environment.GetEnvironmentVariable(variable);
        if (string.IsNullOrWhiteSpace(value))
            throw new InvalidOperationException(WhyUnavailable(provider));
        // MySql.Data resets a pooled connection only when asked; MySqlConnector always does by default.
        return provider is BenchProvider.MySql && MySqlConnector is null
            ? Orseis.Testing.MySqlDataOnMariaDb.ConnectionString(value, connectionReset: true)
            : value;
    }

    private static DbProviderFactory? Load(string factoryType)
    {
        try
        {
            return Type.GetType(factoryType, throwOnError: false)?.GetField("Instance")?.GetValue(null) as DbProviderFactory;
        }
        catch (FileLoadException)
        {
            return null;
        }
        catch (BadImageFormatException)
        {
            return null;
        }
    }
}
