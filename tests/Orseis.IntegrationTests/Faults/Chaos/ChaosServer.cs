using System.Data.Common;
using System.Globalization;

namespace Orseis.IntegrationTests.Faults.Chaos;

/// <summary>
/// What the chaos load needs of one server: the app's connection string (its connections told from every other one), an
/// administrator's connection, the app's read and write, and how to end every connection of the app at once.
/// </summary>
internal abstract class ChaosServer
{
    public abstract DbProviderFactory Factory { get; }

    /// <summary>The app's connection string: every connection opened with it can be found (and ended) by the server.</summary>
    public abstract string AppConnectionString { get; }

    /// <summary>A connection string for the administrator's own connection, outside the app's pool and never ended.</summary>
    protected abstract string AdminConnectionString { get; }

    /// <summary>Creates the read table (ids 1..1000, v = id * 7 + 3) and the write table (one row per answered request).</summary>
    public abstract string[] CreateTablesSql(string items, string writes);

    /// <summary>Ten rows (<c>Id</c>, <c>V</c>) of ids <c>@a</c>..<c>@a + 9</c>, taking about 10 ms on the server.</summary>
    public abstract string ReadSql(string items);

    /// <summary>Inserts one row with <c>@req</c>, taking about 10 ms on the server.</summary>
    public abstract string WriteSql(string writes);

    /// <summary>Ends every connection the app has open on the server; returns how many it ended.</summary>
    public abstract Task<int> KillAppConnectionsAsync(DbConnection admin);

    /// <summary>How many connections the app has open on the server.</summary>
    public abstract string AppConnectionCountSql { get; }

    public async Task<DbConnection> OpenAdminAsync()
    {
        DbConnection admin = Factory.CreateConnection()!;
        admin.ConnectionString = AdminConnectionString;
        await admin.OpenAsync();
        return admin;
    }

    public static async Task<long> ScalarAsync(DbConnection connection, string sql)
    {
        await using DbCommand command = connection.CreateCommand();
        command.CommandText = sql;
        return Convert.ToInt64(await command.ExecuteScalarAsync(), CultureInfo.InvariantCulture);
    }
}

/// <summary>MariaDB (the fault tests' private server): the app connects as <c>orseis</c>, the administrator as root.</summary>
internal sealed class MariaDbChaos(string connectionString) : ChaosServer
{
    public override DbProviderFactory Factory => MySqlConnector.MySqlConnectorFactory.Instance;

    public override string AppConnectionString => connectionString + ";Connect Timeout=3";

    protected override string AdminConnectionString =>
        new MySqlConnector.MySqlConnectionStringBuilder(connectionString) { UserID = "root", Password = "", Pooling = false }.ConnectionString;

    public override string[] CreateTablesSql(string items, string writes) =>
    [
        $"create table {items} (id int primary key, v int not null)",
        $"insert into {items} (id, v) select seq, seq * 7 + 3 from seq_1_to_1000",
        $"create table {writes} (n int auto_increment primary key, req char(32) not null, pause int not null)",
    ];

    // sleep() answers 0 (v + 0 is a bigint): one millisecond per row, ten rows.
    public override string ReadSql(string items) => $"select id as Id, v + sleep(0.001) as V from {items} where id between @a and @a + 9";

    public override string WriteSql(string writes) => $"insert into {writes} (req, pause) values (@req, sleep(0.01))";

    public override string AppConnectionCountSql => "select count(*) from information_schema.processlist where user = 'orseis'";

    public override async Task<int> KillAppConnectionsAsync(DbConnection admin)
    {
        var ids = new List<long>();
        await using (DbCommand list = admin.CreateCommand())
        {
            list.CommandText = "select id from information_schema.processlist where user = 'orseis'";
            await using DbDataReader reader = await list.ExecuteReaderAsync();
            while (await reader.ReadAsync())
                ids.Add(Convert.ToInt64(reader.GetValue(0), CultureInfo.InvariantCulture));
        }

        int killed = 0;
        foreach (long id in ids)
        {
            await using DbCommand kill = admin.CreateCommand();
            kill.CommandText = string.Create(CultureInfo.InvariantCulture, $"KILL CONNECTION {id}");
            try
            {
                await kill.ExecuteNonQueryAsync();
                killed++;
            }
            catch (MySqlConnector.MySqlException e) when (e.ErrorCode == MySqlConnector.MySqlErrorCode.NoSuchThread)
            {
                // It closed between the list and the kill.
            }
        }

        return killed;
    }
}

/// <summary>PostgreSQL: the app's connections carry an application name of their own; pg_terminate_backend ends them.</summary>
internal sealed class PostgresChaos(string connectionString) : ChaosServer
{
    private const string AppName = "orseis_chaos";

    public override DbProviderFactory Factory => Npgsql.NpgsqlFactory.Instance;

    public override string AppConnectionString =>
        new Npgsql.NpgsqlConnectionStringBuilder(connectionString) { ApplicationName = AppName, Timeout = 3 }.ConnectionString;

    protected override string AdminConnectionString =>
        new Npgsql.NpgsqlConnectionStringBuilder(connectionString) { ApplicationName = "orseis_chaos_admin", Pooling = false }.ConnectionString;

    public override string[] CreateTablesSql(string items, string writes) =>
    [
        $"create table {items} (id int primary key, v int not null)",
        $"insert into {items} (id, v) select g, g * 7 + 3 from generate_series(1, 1000) g",
        $"create table {writes} (n serial primary key, req char(32) not null)",
    ];

    public override string ReadSql(string items) => $"select id as \"Id\", v::int8 as \"V\" from {items}, pg_sleep(0.01) where id between @a and @a + 9";

    public override string WriteSql(string writes) => $"insert into {writes} (req) select @req from pg_sleep(0.01)";

    public override string AppConnectionCountSql => $"select count(*) from pg_stat_activity where application_name = '{AppName}'";

    public override async Task<int> KillAppConnectionsAsync(DbConnection admin) => (int)await ScalarAsync(
        admin,
        $"select count(*) from (select pg_terminate_backend(pid) from pg_stat_activity where application_name = '{AppName}') k");
}
