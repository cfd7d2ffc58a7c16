using System.Transactions;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// An ambient <see cref="TransactionScope"/> on a real server, per provider: OpenPerCall's connections open inside the
/// scope and join it; ReuseConnection's shared connection and a session opened before the scope are refused; a session
/// opened inside the scope joins it. Every outcome is read from another connection, outside any scope.
/// </summary>
public abstract partial class TransactionScopeSuite : IDisposable
{
    private readonly List<Database> _owned = [];
    private readonly Database _observer;

    protected TransactionScopeSuite(Dialect dialect)
    {
        Dialect = dialect;
        Table = "orseis_scope_" + Guid.NewGuid().ToString("N")[..10];
        _observer = Open(ExecutionMode.OpenPerCall);
        _observer.Execute(Text($"create table {Table} (id int primary key, v varchar(20) not null)"));
    }

    protected Dialect Dialect { get; }

    protected string Table { get; }

    private string Insert => Text($"insert into {Table} (id, v) values (@id, 'x')");

    /// <summary>How many rows the table holds, as another connection outside any scope sees it.</summary>
    private int Committed()
    {
        using var outside = new TransactionScope(TransactionScopeOption.Suppress);
        return _observer.Scalar<int>(Text($"select count(*) from {Table}"));
    }

    /// <summary>SQL text with the table name in it (a plain string, so Orseis does not parameterise the hole).</summary>
    private static string Text(string sql) => sql;

    private Database Open(ExecutionMode mode)
    {
        Database db = Dialect.Open(mode);
        _owned.Add(db);
        return db;
    }

    protected async Task OpenPerCall_joins_the_scope_a_completed_scope_commits_and_an_uncompleted_one_rolls_back()
    {
        Database db = Open(ExecutionMode.OpenPerCall);
        using (var scope = new TransactionScope(TransactionScopeAsyncFlowOption.Enabled))
        {
            // Each call opens its own pooled connection; the provider hands the scope's connection back each time.
            Assert.Equal(1, db.Execute(Insert, new { id = 1 }));
            Assert.Equal(1, await db.ExecuteAsync(Insert, new { id = 2 }));
            Assert.Equal(2, await db.ScalarAsync<int>(Text($"select count(*) from {Table}"))); // its own uncommitted rows: one transaction
            Assert.Equal(2, db.Stream<int>(Text($"select id from {Table}")).Count());
            Assert.Equal(0, Committed());
            scope.Complete();
        }

        Assert.Equal(2, Committed());

        using (new TransactionScope(TransactionScopeAsyncFlowOption.Enabled))
        {
            Assert.Equal(1, db.Execute(Insert, new { id = 3 }));
            Assert.Equal(2, await db.ExecuteAsync(Insert, new[] { new { id = 4 }, new { id = 5 } }));
            Assert.Equal(5, db.Scalar<int>(Text($"select count(*) from {Table}")));
        }

        Assert.Equal(2, Committed());
        Assert.Equal(2, db.Scalar<int>(Text($"select count(*) from {Table}"))); // and the pool's connections work after
    }

    /// <summary>
    /// Two connections open at once in one scope: the second joins the same transaction only through the provider's own
    /// two-phase commit (.NET on Linux has no distributed transaction coordinator). What each provider does is asserted
    /// by <paramref name="check"/>: the second call's error, the error of ending the completed scope, and the rows kept.
    /// </summary>
    protected void A_second_connection_open_at_once_in_one_scope(Action<Exception?, Exception?, int> check)
    {
        Database db = Open(ExecutionMode.OpenPerCall);
        Exception? second = null;
        Exception? ending = Record.Exception(() =>
        {
            using var scope = new TransactionScope();
            db.Execute(Insert, new { id = 1 });
            using (IEnumerator<int> reading = db.Stream<int>(Text($"select id from {Table}")).GetEnumerator())
            {
                Assert.True(reading.MoveNext()); // holds the scope's first connection
                second = Record.Exception(() => db.Execute(Insert, new { id = 2 }));
            }

            scope.Complete();
        });
        check(second, ending, Committed());
    }

    protected async Task ReuseConnection_is_refused_under_a_scope_and_nothing_is_written()
    {
        Database db = Open(ExecutionMode.ReuseConnection);
        Assert.Equal(0, db.Scalar<int>(Text($"select count(*) from {Table}"))); // the shared connection is open before the scope
        using (new TransactionScope(TransactionScopeAsyncFlowOption.Enabled))
        {
            var refused = Assert.Throws<InvalidOperationException>(() => db.Execute(Insert, new { id = 1 }));
            Assert.Contains("ReuseConnection mode keeps one connection for every caller", refused.Message, StringComparison.Ordinal);
            await Assert.ThrowsAsync<InvalidOperationException>(() => db.ExecuteAsync(Insert, new { id = 2 }));
        }

        // Nor is a first call that would open the shared connection inside a scope let through.
        Database fresh = Open(ExecutionMode.ReuseConnection);
        using (new TransactionScope())
            Assert.Throws<InvalidOperationException>(() => fresh.Execute(Insert, new { id = 3 }));
        Assert.Equal(1, fresh.Execute(Insert, new { id = 3 }));
        Assert.Equal(1, Committed());
    }

    protected async Task A_session_opened_before_the_scope_is_refused_and_one_opened_inside_joins_it()
    {
        Database db = Open(ExecutionMode.OpenPerCall);
        await using (Session before = await db.OpenSessionAsync())
        {
            using (new TransactionScope(TransactionScopeAsyncFlowOption.Enabled))
            {
                var refused = await Assert.ThrowsAsync<InvalidOperationException>(() => before.ExecuteAsync(Insert, new { id = 1 }));
                Assert.Contains("the session's connection was opened outside this scope", refused.Message, StringComparison.Ordinal);
            }

            Assert.Equal(1, before.Execute(Insert, new { id = 1 })); // outside the scope it runs as ever
        }

        // Opened inside: the provider enlists the session's connection, so the scope decides.
        using (new TransactionScope(TransactionScopeAsyncFlowOption.Enabled))
        {
            await using Session inside = await db.OpenSessionAsync();
            Assert.Equal(1, await inside.ExecuteAsync(Insert, new { id = 2 }));
            Assert.Equal(1, inside.Execute(Insert, new { id = 3 }));
            using (new TransactionScope(TransactionScopeOption.Suppress, TransactionScopeAsyncFlowOption.Enabled))
            {
                var stillJoined = Assert.Throws<InvalidOperationException>(() => inside.Execute(Insert, new { id = 4 }));
                Assert.Contains("joined the TransactionScope the session was opened in", stillJoined.Message, StringComparison.Ordinal);
            }
        }

        Assert.Equal(1, Committed());

        using (var scope = new TransactionScope(TransactionScopeAsyncFlowOption.Enabled))
        {
            using Session inside = db.OpenSession();
            Assert.Equal(1, inside.Execute(Insert, new { id = 5 }));
            Assert.Equal(1, Committed());
            scope.Complete();
        }

        Assert.Equal(2, Committed());
    }

    /// <summary>A connection string that turns auto-enlistment off: OpenPerCall's connections would not join, so calls are refused.</summary>
    protected void Enlistment_turned_off_in_the_connection_string_is_refused(string setting)
    {
        var db = new Database(Dialect.Factory, Dialect.ConnectionString + ";" + setting, new OrseisOptions());
        _owned.Add(db);
        using (new TransactionScope())
        {
            var refused = Assert.Throws<InvalidOperationException>(() => db.Execute(Insert, new { id = 1 }));
            Assert.Contains($"the connection string turns enlistment off ({setting})", refused.Message, StringComparison.OrdinalIgnoreCase); // Npgsql writes False
        }

        Assert.Equal(0, Committed());
    }

    public void Dispose()
    {
        try
        {
            _observer.Execute(Text($"drop table if exists {Table}"));
        }
        finally
        {
            foreach (Database db in _owned)
                db.Dispose();
            GC.SuppressFinalize(this);
        }
    }
}

/// <summary>TransactionScope on PostgreSQL through Npgsql.</summary>
public sealed class PostgresTransactionScopeTests() : TransactionScopeSuite(new PostgresDialect())
{
    [PostgresFact] public Task OpenPerCall_joins() => OpenPerCall_joins_the_scope_a_completed_scope_commits_and_an_uncompleted_one_rolls_back();

    [PostgresFact] public Task Connection_scope_steps_aside() => A_connection_scope_steps_aside_for_a_transaction_scope_and_parks_again_after_it();

    /// <summary>
    /// Npgsql enlists the second connection too and commits with PREPARE TRANSACTION, which PostgreSQL refuses by default
    /// (<c>max_prepared_transactions = 0</c>): completing the scope throws and nothing is kept.
    /// </summary>
    [PostgresFact]
    public void Two_connections_at_once() => A_second_connection_open_at_once_in_one_scope((second, ending, rows) =>
    {
        Assert.Null(second);
        Assert.IsType<TransactionAbortedException>(ending);
        Assert.Equal("55000", Assert.IsType<Npgsql.PostgresException>(ending.InnerException).SqlState); // prepared transactions are disabled
        Assert.Equal(0, rows);
    });

    [PostgresFact] public void Enlist_false_refused() => Enlistment_turned_off_in_the_connection_string_is_refused("Enlist=false");

    [PostgresFact] public Task ReuseConnection_refused() => ReuseConnection_is_refused_under_a_scope_and_nothing_is_written();

    [PostgresFact] public Task Sessions() => A_session_opened_before_the_scope_is_refused_and_one_opened_inside_joins_it();

    [PostgresFact] public Task Deadlock_in_scope() => A_deadlock_in_a_scope_dooms_it_and_nothing_is_committed();

    [PostgresFact] public Task Killed_in_scope() => A_killed_enlisted_connection_reports_the_scope_and_every_later_call_says_so();
}

/// <summary>TransactionScope on MariaDB, once per MySQL provider.</summary>
public abstract class MariaDbTransactionScopeTests(MySqlProvider provider) : TransactionScopeSuite(new MySqlDialect(provider))
{
    [MySqlFact] public Task OpenPerCall_joins() => OpenPerCall_joins_the_scope_a_completed_scope_commits_and_an_uncompleted_one_rolls_back();

    [MySqlFact] public Task Connection_scope_steps_aside() => A_connection_scope_steps_aside_for_a_transaction_scope_and_parks_again_after_it();

    /// <summary>
    /// MySqlConnector enlists the second connection in an XA transaction of its own, and both commit. MySql.Data hands
    /// the scope's one connection back, which the stream's reader still uses: the second call fails (the first row is kept
    /// here because the test completes the scope anyway).
    /// </summary>
    [MySqlFact]
    public void Two_connections_at_once() => A_second_connection_open_at_once_in_one_scope((second, ending, rows) =>
    {
        Assert.Null(ending);
        if (provider == MySqlProvider.MySqlConnector)
        {
            Assert.Null(second);
            Assert.Equal(2, rows);
        }
        else
        {
            Assert.IsType<MySql.Data.MySqlClient.MySqlException>(second);
            Assert.Contains("already an open DataReader", second.Message, StringComparison.Ordinal);
            Assert.Equal(1, rows);
        }
    });

    [MySqlFact] public void AutoEnlist_false_refused() => Enlistment_turned_off_in_the_connection_string_is_refused("AutoEnlist=false");

    [MySqlFact] public Task ReuseConnection_refused() => ReuseConnection_is_refused_under_a_scope_and_nothing_is_written();

    [MySqlFact] public Task Sessions() => A_session_opened_before_the_scope_is_refused_and_one_opened_inside_joins_it();

    [MySqlFact] public Task Deadlock_in_scope() => A_deadlock_in_a_scope_dooms_it_and_nothing_is_committed();

    [MySqlFact] public Task Killed_in_scope() => A_killed_enlisted_connection_reports_the_scope_and_every_later_call_says_so();
}

/// <summary>Through MySqlConnector.</summary>
public sealed class MySqlConnectorTransactionScopeTests() : MariaDbTransactionScopeTests(MySqlProvider.MySqlConnector);

/// <summary>Through Oracle's MySql.Data 8.0.16.</summary>
public sealed class MySqlDataTransactionScopeTests() : MariaDbTransactionScopeTests(MySqlProvider.MySqlData);
