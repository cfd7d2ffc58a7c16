using System.Data.Common;
using Microsoft.Data.Sqlite;
using Npgsql;

namespace Orseis.Benchmarks.Infrastructure;

/// <summary>Finds the ADO.NET factory and server connection string of a provider, or says why it cannot.</summary>
public static class ProviderFactories
{
    /// <summary>The environment variable with an Npgsql connection string.</summary>
    public const string PostgresVariable = "ORSEIS_POSTGRES";

    /// <summary>The environment variable with a SqlClient connection string.</summary>
    public const string SqlServerVariable = "ORSEIS_SQLSERVER";

    /// <summary>The environment variable with a MySQL connection string (keys MySqlConnector and MySql.Data share).</summary>
    public const string MySqlVariable = "ORSEIS_MYSQL";

    /// <summary>Returns null when <paramref name="provider"/> can run here, otherwise the reason it cannot.</summary>
    public static string? WhyUnavailable(BenchProvider provider) => provider switch
    {
        BenchProvider.Postgres when string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable(PostgresVariable)) =>
            $"{PostgresVariable} is not set; start a private server with `scripts/pg-start.sh STATEFILE` and export its output as {PostgresVariable}.",
        BenchProvider.SqlServer when string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable(SqlServerVariable)) =>
            $"{SqlServerVariable} is not set (a SqlClient connection string to a SQL Server is needed).",
        BenchProvider.MySql or BenchProvider.MySqlData when string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable(MySqlVariable)) =>
            $"{MySqlVariable} is not set; start a private MariaDB with `scripts/mariadb-start.sh STATEFILE` and export its output as {MySqlVariable}.",
        _ => null,
    };

    /// <summary>The provider's factory.</summary>
    /// <exception cref="InvalidOperationException">The provider is unavailable; the message says why.</exception>
    public static DbProviderFactory Factory(BenchProvider provider) => provider switch
    {
        BenchProvider.Sqlite => SqliteFactory.Instance,
        BenchProvider.Postgres => NpgsqlFactory.Instance,
        BenchProvider.MySql => MySqlConnector.MySqlConnectorFactory.Instance,
        BenchProvider.MySqlData => MySql.Data.MySqlClient.MySqlClientFactory.Instance,
        _ => Microsoft.Data.SqlClient.SqlClientFactory.Instance,
    };

    /// <summary>The server connection string of a networked provider, from its environment variable.</summary>
    /// <exception cref="InvalidOperationException">The variable is not set.</exception>
    public static string ServerConnectionString(BenchProvider provider)
    {
        string variable = provider switch
        {
            BenchProvider.Postgres => PostgresVariable,
            BenchProvider.MySql or BenchProvider.MySqlData => MySqlVariable,
            _ => SqlServerVariable,
        };
        string? value = Environment.GetEnvironmentVariable(variable);
        if (string.IsNullOrWhiteSpace(value))
            throw new InvalidOperationException(WhyUnavailable(provider));
        // MySql.Data resets a pooled connection only when asked; MySqlConnector always does by default.
        return provider is BenchProvider.MySqlData
            ? Orseis.Testing.MySqlDataOnMariaDb.ConnectionString(value, connectionReset: true)
            : value;
    }

    /// <summary>
    /// The provider package's name and version, e.g. "MySqlConnector 2.6.2": the informational version without its
    /// commit suffix (MySqlConnector keeps its assembly version at 2.0.0.0), else the assembly version.
    /// </summary>
    public static string Describe(DbProviderFactory factory)
    {
        System.Reflection.Assembly assembly = factory.GetType().Assembly;
        string? version = assembly.GetCustomAttributes(typeof(System.Reflection.AssemblyInformationalVersionAttribute), false)
            is [System.Reflection.AssemblyInformationalVersionAttribute informational, ..] ? informational.InformationalVersion.Split('+')[0] : null;
        return $"{assembly.GetName().Name} {version ?? assembly.GetName().Version?.ToString()}";
    }
}
