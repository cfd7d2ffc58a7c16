
namespace Orseis.IntegrationTests.Infrastructure;

/// <summary>
/// Where the test servers are. One environment variable per server, set by scripts/test.sh (which starts a private
/// PostgreSQL and a private MariaDB on 127.0.0.1) or by hand:
/// <list type="bullet">
/// <item><c>ORSEIS_POSTGRES</c>: an Npgsql connection string, e.g. <c>Host=127.0.0.1;Port=5432;Username=orseis;Database=orseis</c>.</item>
/// <item><c>ORSEIS_SQLSERVER</c>: a Microsoft.Data.SqlClient connection string.</item>
/// <item><c>ORSEIS_MYSQL</c>: a MariaDB/MySQL connection string in the keys both MySQL providers share, e.g.
/// <c>Server=127.0.0.1;Port=3306;User ID=orseis;Password=orseis;Database=orseis</c>. The tests run through
/// MySqlConnector, and a second set through Oracle's MySql.Data.</item>
/// </list>
/// A missing server skips its tests on a developer's machine and fails them in CI (<c>CI=true</c>).
/// </summary>
internal static class Servers
{
    public static bool InCi => string.Equals(Environment.GetEnvironmentVariable("CI"), "true", StringComparison.OrdinalIgnoreCase);

    public static string? Postgres => Environment.GetEnvironmentVariable("ORSEIS_POSTGRES") is { Length: > 0 } cs ? cs : null;

    public static string? SqlServer => Environment.GetEnvironmentVariable("ORSEIS_SQLSERVER") is { Length: > 0 } cs ? cs : null;

    public static string? MySql => Environment.GetEnvironmentVariable("ORSEIS_MYSQL") is { Length: > 0 } cs ? cs : null;
}

/// <summary>A test that needs PostgreSQL: skipped (saying why) without ORSEIS_POSTGRES, except in CI where it must run.</summary>
public sealed class PostgresFactAttribute : FactAttribute
{
    public PostgresFactAttribute()
    {
        if (Servers.Postgres is null && !Servers.InCi)
        {
            string reason = "PostgreSQL tests need ORSEIS_POSTGRES (an Npgsql connection string); ./scripts/test.sh starts a private server and sets it.";
            Skip = reason;
        }
    }
}

/// <summary>A theory that needs PostgreSQL: skipped (saying why) without ORSEIS_POSTGRES, except in CI where it must run.</summary>
public sealed class PostgresTheoryAttribute : TheoryAttribute
{
    public PostgresTheoryAttribute()
    {
        if (Servers.Postgres is null && !Servers.InCi)
            Skip = "PostgreSQL tests need ORSEIS_POSTGRES (an Npgsql connection string); ./scripts/test.sh starts a private server and sets it.";
    }
}

/// <summary>A test that needs SQL Server: skipped (saying why) unless ORSEIS_SQLSERVER is set. SQL Server cannot run on the project's own machines.</summary>
public sealed class SqlServerFactAttribute : FactAttribute
{
    public SqlServerFactAttribute()
    {
        if (Servers.SqlServer is null)
        {
            string reason = "SQL Server tests need ORSEIS_SQLSERVER (a SqlClient connection string); no SQL Server runs on this machine.";
            Skip = reason;
        }
    }
}

/// <summary>A test that needs MariaDB/MySQL: skipped (saying why) without ORSEIS_MYSQL, except in CI where it must run.</summary>
public sealed class MySqlFactAttribute : FactAttribute
{
    public MySqlFactAttribute()
    {
        if (Servers.MySql is null && !Servers.InCi)
            Skip = Reason;
    }

    internal const string Reason =
        "MariaDB tests need ORSEIS_MYSQL (a MySQL connection string); ./scripts/test.sh starts a private mariadbd and sets it.";
}

/// <summary>A theory that needs MariaDB/MySQL: skipped (saying why) without ORSEIS_MYSQL, except in CI where it must run.</summary>
public sealed class MySqlTheoryAttribute : TheoryAttribute
{
    public MySqlTheoryAttribute()
    {
        if (Servers.MySql is null && !Servers.InCi)
            Skip = MySqlFactAttribute.Reason;
    }
}
