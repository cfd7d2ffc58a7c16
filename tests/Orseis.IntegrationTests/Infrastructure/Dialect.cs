using System.Data.Common;

namespace Orseis.IntegrationTests.Infrastructure;

/// <summary>What differs between servers in the shared suite: the provider and a few statements.</summary>
public abstract class Dialect
{
    public abstract DbProviderFactory Factory { get; }

    public abstract string ConnectionString { get; }

    /// <summary>The connection string with a pool of exactly one connection, so consecutive opens get the same server session.</summary>
    public abstract string SingleConnectionPool { get; }

    public abstract string BackendIdSql { get; }

    public abstract string KillSql { get; }

    public abstract string TempTable { get; }

    /// <summary>Creates <see cref="TempTable"/> with one int column <c>v</c>, visible only to this server session.</summary>
    public abstract string CreateTempTableSql { get; }

    public abstract string SetSessionVariableSql { get; }

    public abstract string GetSessionVariableSql { get; }

    /// <summary>A statement that keeps the server busy for 30 seconds.</summary>
    public abstract string SleepSql { get; }

    /// <summary>A statement that sleeps <paramref name="seconds"/> and carries <paramref name="marker"/> in its text, so another connection can find it.</summary>
    public abstract string MarkedSleepSql(int seconds, string marker);

    /// <summary>The backend id of the other connection whose running statement contains <c>@marker</c>; no row while none runs yet.</summary>
    public abstract string FindBackendSql { get; }

    /// <summary>How many connections the test user has open on the server (including the one asking).</summary>
    public abstract string ConnectionCountSql { get; }

    /// <summary>1 while the asking connection is inside a transaction, else 0; null where the server cannot say it from inside.</summary>
    public virtual string? InTransactionSql => null;

    public Database Open(ExecutionMode mode, string? connectionString = null, Action<OrseisOptions>? configure = null)
    {
        var options = new OrseisOptions { Mode = mode };
        configure?.Invoke(options);
        return new(Factory, connectionString ?? ConnectionString, options);
    }

    protected static string Required(string? value, string variable) =>
        value ?? throw new InvalidOperationException($"{variable} is not set, and CI requires this server's tests to run. scripts/test.sh starts the server and sets it.");
}

public sealed class PostgresDialect : Dialect
{
    public override DbProviderFactory Factory => Npgsql.NpgsqlFactory.Instance;

    public override string ConnectionString => Required(Servers.Postgres, "ORSEIS_POSTGRES");

    public override string SingleConnectionPool =>
        new Npgsql.NpgsqlConnectionStringBuilder(ConnectionString) { MaxPoolSize = 1, MinPoolSize = 0 }.ToString();

    public override string BackendIdSql => "select pg_backend_pid()";

    public override string KillSql => "select pg_terminate_backend(@id)";

    public override string TempTable => "scratch";

    public override string CreateTempTableSql => $"create temp table {TempTable} (v int)";

    public override string SetSessionVariableSql => "select set_config('orseis.marker', @value, false)";

    public override string GetSessionVariableSql => "select current_setting('orseis.marker', true)";

    public override string SleepSql => "select pg_sleep(30)";

    public override string MarkedSleepSql(int seconds, string marker) => $"select pg_sleep({seconds}) as {marker}";

    public override string FindBackendSql =>
        "select pid from pg_stat_activity where query like '%' || @marker || '%' and query not like '%pg_stat_activity%' and pid <> pg_backend_pid() limit 1";

    public override string ConnectionCountSql => "select count(*) from pg_stat_activity where usename = current_user";
}

public sealed class SqlServerDialect : Dialect
{
    public override DbProviderFactory Factory => Microsoft.Data.SqlClient.SqlClientFactory.Instance;

    public override string ConnectionString => Required(Servers.SqlServer, "ORSEIS_SQLSERVER");

    public override string SingleConnectionPool
    {
        get
        {
            DbConnectionStringBuilder builder = Factory.CreateConnectionStringBuilder()!;
            builder.ConnectionString = ConnectionString;
            builder["Max Pool Size"] = 1;
            return builder.ConnectionString;
        }
    }

    public override string BackendIdSql => "select @@SPID";

    // KILL takes no parameters; the id is an int read from the server, formatted invariantly by the suite.
    public override string KillSql => "KILL {0}";

    public override string TempTable => "#scratch";

    public override string CreateTempTableSql => $"create table {TempTable} (v int)";

    public override string SetSessionVariableSql => "EXEC sp_set_session_context N'marker', @value";

    public override string GetSessionVariableSql => "select cast(SESSION_CONTEXT(N'marker') as nvarchar(100))";

    public override string SleepSql => "waitfor delay '00:00:30'";

    public override string MarkedSleepSql(int seconds, string marker) => $"/* {marker} */ waitfor delay '00:00:{seconds:00}'";

    public override string FindBackendSql =>
        "select top 1 r.session_id from sys.dm_exec_requests r cross apply sys.dm_exec_sql_text(r.sql_handle) t " +
        "where t.text like '%' + @marker + '%' and t.text not like '%dm_exec_requests%' and r.session_id <> @@SPID";

    public override string ConnectionCountSql => "select count(*) from sys.dm_exec_sessions where login_name = SUSER_SNAME()";
}

/// <summary>The two MySQL providers the MariaDB tests run through.</summary>
public enum MySqlProvider
{
    /// <summary>MySqlConnector, the provider Orseis is built and measured with.</summary>
    MySqlConnector,

    /// <summary>Oracle's MySql.Data 8.0.16, a second provider with different habits (no DateOnly, no reset by default).</summary>
    MySqlData,
}

/// <summary>
/// MariaDB/MySQL through <see cref="MySqlProvider.MySqlConnector"/> or <see cref="MySqlProvider.MySqlData"/>.
/// User variables (<c>@orseis_marker</c>) need <c>Allow User Variables</c> on both providers, otherwise they take every
/// <c>@name</c> for a parameter. For MySql.Data the connection string gets what
/// <see cref="Orseis.Testing.MySqlDataOnMariaDb"/> adds for MariaDB 10.6+, and <c>Connection Reset=true</c> as
/// MySqlConnector does by default (else a pooled connection keeps its user variables and temp tables).
/// </summary>
public sealed class MySqlDialect(MySqlProvider provider = MySqlProvider.MySqlConnector) : Dialect
{
    public MySqlProvider Provider { get; } = provider;

    public override DbProviderFactory Factory => Provider == MySqlProvider.MySqlConnector
        ? MySqlConnector.MySqlConnectorFactory.Instance
        : MySql.Data.MySqlClient.MySqlClientFactory.Instance;

    public override string ConnectionString
    {
        get
        {
            string connectionString = Required(Servers.MySql, "ORSEIS_MYSQL").TrimEnd(';') + ";Allow User Variables=true";
            return Provider == MySqlProvider.MySqlConnector
                ? connectionString
                : Orseis.Testing.MySqlDataOnMariaDb.ConnectionString(connectionString, connectionReset: true);
        }
    }

    public override string SingleConnectionPool => ConnectionString + ";Maximum Pool Size=1;Minimum Pool Size=0";

    public override string BackendIdSql => "select connection_id()";

    // KILL takes no parameters; the id is an int read from the server, formatted invariantly by the suite.
    public override string KillSql => "KILL {0}";

    public override string TempTable => "scratch";

    public override string CreateTempTableSql => $"create temporary table {TempTable} (v int)";

    public override string SetSessionVariableSql => "set @orseis_marker = @value";

    public override string GetSessionVariableSql => "select @orseis_marker";

    public override string SleepSql => "select sleep(30)";

    public override string MarkedSleepSql(int seconds, string marker) => $"select sleep({seconds}) as {marker}";

    public override string InTransactionSql => "select @@in_transaction";

    public override string FindBackendSql =>
        "select id from information_schema.processlist where info like concat('%', @marker, '%') and info not like '%processlist%' and id <> connection_id() limit 1";

    public override string ConnectionCountSql => "select count(*) from information_schema.processlist where user = current_user() or user = substring_index(current_user(), '@', 1)";
}
