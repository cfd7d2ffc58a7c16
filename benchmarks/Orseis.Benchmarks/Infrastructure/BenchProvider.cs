namespace Orseis.Benchmarks.Infrastructure;

/// <summary>The database a benchmark run talks to, chosen with <c>--provider</c> and handed to BenchmarkDotNet's
/// child processes through the <see cref="BenchProviders.EnvironmentVariable"/> environment variable.</summary>
public enum BenchProvider
{
    /// <summary>Microsoft.Data.Sqlite over a temporary file, pooled (the default).</summary>
    Sqlite,

    /// <summary>PostgreSQL through Npgsql (connection string from <c>ORSEIS_POSTGRES</c>).</summary>
    Postgres,

    /// <summary>SQL Server through Microsoft.Data.SqlClient (connection string from <c>ORSEIS_SQLSERVER</c>).</summary>
    SqlServer,

    /// <summary>MariaDB/MySQL through MySqlConnector (connection string from <c>ORSEIS_MYSQL</c>).</summary>
    MySql,

    /// <summary>
    /// MariaDB/MySQL through Oracle's MySql.Data 8.0.16 (connection string from <c>ORSEIS_MYSQL</c>, with
    /// <c>Connection Reset=true</c> as MySqlConnector's default and the MariaDB 10.6+ interceptor).
    /// </summary>
    MySqlData,
}

/// <summary>Reads and writes the provider choice.</summary>
public static class BenchProviders
{
    /// <summary>The environment variable that carries the provider name to child processes.</summary>
    public const string EnvironmentVariable = "ORSEIS_BENCH_PROVIDER";

    /// <summary>The provider of this process: <see cref="EnvironmentVariable"/>, or SQLite when unset.</summary>
    public static BenchProvider Current => Parse(Environment.GetEnvironmentVariable(EnvironmentVariable) ?? "sqlite");

    /// <summary>The lower-case name used on the command line, in the environment and in result tables.</summary>
    public static string Name(BenchProvider provider) => provider switch
    {
        BenchProvider.Sqlite => "sqlite",
        BenchProvider.Postgres => "postgres",
        BenchProvider.MySql => "mysql",
        BenchProvider.MySqlData => "mysql-data",
        _ => "sqlserver",
    };

    /// <summary>Parses a provider name (case-insensitive).</summary>
    /// <exception cref="ArgumentException">The name is not sqlite, postgres, sqlserver, mysql or mysql-data.</exception>
    public static BenchProvider Parse(string name) => name.Trim().ToUpperInvariant() switch
    {
        "SQLITE" => BenchProvider.Sqlite,
        "POSTGRES" or "POSTGRESQL" or "NPGSQL" => BenchProvider.Postgres,
        "SQLSERVER" or "MSSQL" => BenchProvider.SqlServer,
        "MYSQL" or "MARIADB" or "MYSQLCONNECTOR" => BenchProvider.MySql,
        "MYSQL-DATA" or "MYSQLDATA" or "MYSQL.DATA" => BenchProvider.MySqlData,
        _ => throw new ArgumentException($"Unknown provider '{name}'; use sqlite, postgres, sqlserver, mysql or mysql-data.", nameof(name)),
    };
}
