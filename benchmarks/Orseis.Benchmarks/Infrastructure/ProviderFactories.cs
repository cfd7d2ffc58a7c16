using System.Data.Common;
using Microsoft.Data.Sqlite;
using Npgsql;

namespace Orseis.Benchmarks.Infrastructure;

/// <summary>
/// Finds the ADO.NET factory and server connection string of a provider, or says why it cannot. SQL Server's
/// factory is loaded by reflection because Microsoft.Data.SqlClient cannot be restored from this machine's package
/// mirror; the code path exists so the study runs wherever the assembly is present.
/// </summary>
public static class ProviderFactories
{
    /// <summary>The environment variable with an Npgsql connection string.</summary>
    public const string PostgresVariable = "ORSEIS_POSTGRES";

    /// <summary>The environment variable with a SqlClient connection string.</summary>
    public const string SqlServerVariable = "ORSEIS_SQLSERVER";

    private const string SqlClientFactoryType = "Microsoft.Data.SqlClient.SqlClientFactory, Microsoft.Data.SqlClient";

    /// <summary>Returns null when <paramref name="provider"/> can run here, otherwise the reason it cannot.</summary>
    public static string? WhyUnavailable(BenchProvider provider) => provider switch
    {
        BenchProvider.Postgres when string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable(PostgresVariable)) =>
            $"{PostgresVariable} is not set; start a private server with `scripts/pg-start.sh STATEFILE` and export its output as {PostgresVariable}.",
        BenchProvider.SqlServer when string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable(SqlServerVariable)) =>
            $"{SqlServerVariable} is not set (a SqlClient connection string to a SQL Server is needed).",
        BenchProvider.SqlServer when LoadSqlClient() is null =>
            $"the type '{SqlClientFactoryType}' could not be loaded: Microsoft.Data.SqlClient is not in the output " +
            "(this machine's package mirror does not serve its dependencies). Copy the assembly next to the benchmarks or reference the package.",
        _ => null,
    };

    /// <summary>The provider's factory.</summary>
    /// <exception cref="InvalidOperationException">The provider is unavailable; the message says why.</exception>
    public static DbProviderFactory Factory(BenchProvider provider) => provider switch
    {
        BenchProvider.Sqlite => SqliteFactory.Instance,
        BenchProvider.Postgres => NpgsqlFactory.Instance,
        _ => LoadSqlClient() ?? throw new InvalidOperationException(WhyUnavailable(provider)),
    };

    /// <summary>The server connection string of a networked provider, from its environment variable.</summary>
    /// <exception cref="InvalidOperationException">The variable is not set.</exception>
    public static string ServerConnectionString(BenchProvider provider)
    {
        string variable = provider == BenchProvider.Postgres ? PostgresVariable : SqlServerVariable;
        string? value = Environment.GetEnvironmentVariable(variable);
        return string.IsNullOrWhiteSpace(value) ? throw new InvalidOperationException(WhyUnavailable(provider)) : value;
    }

    private static DbProviderFactory? LoadSqlClient()
    {
        try
        {
            return Type.GetType(SqlClientFactoryType, throwOnError: false)?.GetField("Instance")?.GetValue(null) as DbProviderFactory;
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
