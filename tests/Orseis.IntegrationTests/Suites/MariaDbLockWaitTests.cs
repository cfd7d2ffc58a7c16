using Orseis.IntegrationTests.Faults;
using Orseis.IntegrationTests.Infrastructure;
using Orseis.Testing;

namespace Orseis.IntegrationTests.Suites;

/// <summary>A MariaDB of its own started with <c>--innodb-rollback-on-timeout</c> (a server setting that cannot be changed at run time).</summary>
public sealed class RollbackOnTimeoutMariaDb : IDisposable
{
    private readonly Lazy<ThrowawayMariaDb> _server = new(() => new ThrowawayMariaDb("lockwait", "--innodb-rollback-on-timeout"));

    public string ConnectionString => _server.Value.ConnectionString;

    public void Dispose()
    {
        if (_server.IsValueCreated)
            _server.Value.Dispose();
    }
}

/// <summary>
/// InnoDB's lock wait timeout (error 1205) ends only the statement, unless the server runs with
/// <c>innodb_rollback_on_timeout</c>, when it rolls the whole transaction back: Orseis asks the server which, through both
/// MySQL providers. Each outcome is read from another connection.
/// </summary>
public sealed class MariaDbLockWaitTests(RollbackOnTimeoutMariaDb rollbackOnTimeout) : IClassFixture<RollbackOnTimeoutMariaDb>, IDisposable
{
    private readonly string _table = "orseis_lockwait_" + Guid.NewGuid().ToString("N")[..10];
    private readonly List<Database> _owned = [];

    [MySqlTheory]
    [InlineData(MySqlProvider.MySqlConnector)]
    [InlineData(MySqlProvider.MySqlData)]
    public async Task A_lock_wait_timeout_ends_only_the_statement_by_default(MySqlProvider provider)
    {
        (Database db, Database observer) = Prepare(provider, new MySqlDialect(provider).ConnectionString);
        await using Session session = await LockWaitTimeoutAsync(db, observer);
        Assert.Equal(1, await session.ScalarAsync<int>("select @@in_transaction"));
        await session.ExecuteAsync(Insert, new { id = 51 });
        await session.Transaction!.CommitAsync();
        Assert.Equal(2, await observer.ScalarAsync<int>(Count));
    }

    [FaultFact]
    public async Task With_innodb_rollback_on_timeout_the_transaction_is_dead_through_both_providers()
    {
        foreach (MySqlProvider provider in new[] { MySqlProvider.MySqlConnector, MySqlProvider.MySqlData })
        {
            string connectionString = provider == MySqlProvider.MySqlConnector
                ? rollbackOnTimeout.ConnectionString
                : MySqlDataOnMariaDb.ConnectionString(rollbackOnTimeout.ConnectionString, connectionReset: true);
            (Database db, Database observer) = Prepare(provider, connectionString);
            await using Session session = await LockWaitTimeoutAsync(db, observer);
            SessionTransaction tx = session.Transaction!;

            TransactionRolledBackException refused = await Assert.ThrowsAsync<TransactionRolledBackException>(() => session.ExecuteAsync(Insert, new { id = 51 }));
            Assert.True(refused.IsTransient, provider.ToString());
            Assert.Contains("lock wait timeout", refused.Message, StringComparison.Ordinal);
            TransactionRolledBackException commit = Assert.Throws<TransactionRolledBackException>(tx.Commit);
            Assert.Contains("Nothing was committed", commit.Message, StringComparison.Ordinal);
            Assert.Equal(0, await observer.ScalarAsync<int>(Count));
            Assert.Equal(0, await session.ScalarAsync<int>("select @@in_transaction"));
        }
    }

    private string Insert => $"insert into {_table} (id, v) values (@id, 'x')";

    private string Count => $"select count(*) from {_table} where id > 1";

    private (Database Db, Database Observer) Prepare(MySqlProvider provider, string connectionString)
    {
        var db = new Database(new MySqlDialect(provider).Factory, connectionString);
        _owned.Add(db);
        db.Execute(Text($"drop table if exists {_table}"));
        db.Execute(Text($"create table {_table} (id int primary key, v varchar(10) not null) engine = InnoDB"));
        db.Execute(Text($"insert into {_table} (id, v) values (1, 'locked')"));
        return (db, db);
    }

    /// <summary>
    /// Another session holds row 1; a session with a 1 s lock wait inserts row 50 in its transaction, then waits for row 1
    /// until InnoDB's lock wait timeout (1205) ends the statement. Returns that session, its transaction still open in Orseis.
    /// </summary>
    private async Task<Session> LockWaitTimeoutAsync(Database db, Database observer)
    {
        await using Session holder = await db.OpenSessionAsync();
        await using SessionTransaction held = await holder.BeginTransactionAsync();
        await holder.ExecuteAsync(Text($"update {_table} set v = 'held' where id = 1"));

        Session session = await db.OpenSessionAsync();
        await session.ExecuteAsync("set innodb_lock_wait_timeout = 1");
        await session.BeginTransactionAsync();
        await session.ExecuteAsync(Insert, new { id = 50 });
        var error = await Assert.ThrowsAnyAsync<System.Data.Common.DbException>(() => session.ExecuteAsync(Text($"update {_table} set v = 'mine' where id = 1")));
        Assert.Contains("Lock wait timeout", error.Message, StringComparison.Ordinal);
        await held.RollbackAsync();
        Assert.Equal(0, await observer.ScalarAsync<int>(Count));
        return session;
    }

    private static string Text(string sql) => sql;

    public void Dispose()
    {
        foreach (Database db in _owned)
        {
            try
            {
                db.Execute(Text($"drop table if exists {_table}"));
            }
            catch (Exception)
            {
                // the server may be gone with the test that failed for it
            }

            db.Dispose();
        }
    }
}
