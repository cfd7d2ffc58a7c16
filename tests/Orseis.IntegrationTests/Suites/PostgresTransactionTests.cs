using System.Data.Common;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// PostgreSQL aborts a transaction at any failed statement (25P02 until a rollback) and answers COMMIT of an aborted
/// transaction with ROLLBACK and no error. Orseis must not report that as a commit: after a division by zero, a unique
/// violation, a command timeout and a cancel inside a session's transaction (sessions of both modes' databases, sync and
/// async), the next statement is refused and the commit says nothing was committed. A SAVEPOINT rolled back to, sent as
/// SQL, recovers the transaction, and then the commit commits. Every outcome is read from another connection.
/// </summary>
public sealed class PostgresTransactionTests : IDisposable
{
    private readonly PostgresDialect _dialect = new();
    private readonly string _table = "orseis_pgtx_" + Guid.NewGuid().ToString("N")[..10];
    private readonly List<Database> _owned = [];
    private readonly Database _observer;

    public PostgresTransactionTests()
    {
        _observer = Open(ExecutionMode.OpenPerCall);
        if (Servers.Postgres is not null)
            _observer.Execute(Text($"create table {_table} (id int primary key)"));
    }

    public static TheoryData<string, ExecutionMode, bool> Failures()
    {
        var data = new TheoryData<string, ExecutionMode, bool>();
        foreach (string failure in new[] { "division by zero", "unique violation", "command timeout", "cancel" })
        {
            data.Add(failure, ExecutionMode.OpenPerCall, true);
            data.Add(failure, ExecutionMode.ReuseConnection, false);
        }

        return data;
    }

    [PostgresTheory]
    [MemberData(nameof(Failures))]
    public async Task A_failed_statement_aborts_the_transaction_and_the_commit_says_nothing_was_committed(string failure, ExecutionMode mode, bool async)
    {
        await using Session session = await Open(mode).OpenSessionAsync();
        int backend = await session.ScalarAsync<int>("select pg_backend_pid()");
        SessionTransaction tx = await session.BeginTransactionAsync();
        await Insert(session, 1, async);

        Exception failed = await Fail(session, failure, async);
        Assert.Equal(failure is "command timeout" or "cancel", failed is CommandTimeoutException or OperationCanceledException);
        if (failed.Message.Contains("Orseis abandoned the call", StringComparison.Ordinal)
            || (failure is "command timeout" or "cancel" && ConnectionBroke(session)))
        {
            // Npgsql answers a timeout or cancel by a cancel request to the server; on a loaded machine it has taken
            // longer than the one-second grace, and then the call is abandoned by design, or Npgsql's own cancellation
            // timeout broke the connection first: either way its connection is closed, and the session says the
            // transaction's work is lost instead of that the server rolled it back.
            ConnectionBrokenException broken = await Assert.ThrowsAsync<ConnectionBrokenException>(
                () => session.ExecuteAsync(InsertSql, new { id = 2 }));
            Assert.True(broken.InTransaction);
            await tx.DisposeAsync();
            Assert.Equal(0, await Count());
            await Insert(session, 3, async); // a new connection, autocommit
            Assert.Equal(1, await Count());
            return;
        }

        // The next statement: PostgreSQL rejects it, and Orseis says why, with the first error inside.
        TransactionRolledBackException refused = async
            ? await Assert.ThrowsAsync<TransactionRolledBackException>(() => session.ExecuteAsync(InsertSql, new { id = 2 }))
            : Assert.Throws<TransactionRolledBackException>(() => session.Execute(InsertSql, new { id = 2 }));
        Assert.Contains("aborted", refused.Message, StringComparison.Ordinal);
        Assert.IsAssignableFrom<DbException>(refused.InnerException);

        TransactionRolledBackException commit = async
            ? await Assert.ThrowsAsync<TransactionRolledBackException>(() => tx.CommitAsync())
            : Assert.Throws<TransactionRolledBackException>(tx.Commit);
        Assert.Contains("Nothing was committed", commit.Message, StringComparison.Ordinal);
        Assert.False(commit.IsTransient);
        Assert.Null(session.Transaction);

        Assert.Equal(0, await Count());
        Assert.Equal(backend, await session.ScalarAsync<int>("select pg_backend_pid()")); // the same connection, usable
        Assert.Equal(0, session.Reopens);
        Assert.Equal("idle", await _observer.ScalarAsync<string>("select state from pg_stat_activity where pid = @backend", new { backend }));
        await Insert(session, 3, async); // autocommit after the transaction
        Assert.Equal(1, await Count());
    }

    [PostgresFact]
    public async Task A_savepoint_rolled_back_to_recovers_the_transaction_and_the_commit_commits()
    {
        foreach (bool async in new[] { true, false })
        {
            await _observer.ExecuteAsync(Text($"delete from {_table}"));
            await using Session session = await Open(ExecutionMode.OpenPerCall).OpenSessionAsync();
            SessionTransaction tx = await session.BeginTransactionAsync();
            await Insert(session, 1, async);
            await session.ExecuteAsync("savepoint before_risk");
            await Fail(session, "unique violation", async);
            await session.ExecuteAsync("rollback to savepoint before_risk");
            await Insert(session, 2, async);
            if (async)
                await tx.CommitAsync();
            else
                tx.Commit();
            Assert.Equal(2, await Count());
        }
    }

    [PostgresFact]
    public async Task A_failure_rolled_back_to_a_savepoint_after_the_error_was_read_by_a_stream_still_commits()
    {
        await using Session session = await Open(ExecutionMode.OpenPerCall).OpenSessionAsync();
        SessionTransaction tx = await session.BeginTransactionAsync();
        await Insert(session, 1, async: true);
        await session.ExecuteAsync("savepoint s");
        await Assert.ThrowsAnyAsync<DbException>(async () =>
        {
            await foreach (int _ in session.StreamAsync<int>("select 1 / (id - id) from " + _table))
            {
            }
        });
        await session.ExecuteAsync("rollback to savepoint s");
        await tx.CommitAsync();
        Assert.Equal(1, await Count());
    }

    private const string InsertTemplate = "insert into {0} (id) values (@id)";

    private string InsertSql => string.Format(System.Globalization.CultureInfo.InvariantCulture, InsertTemplate, _table);

    private Task Insert(Session session, int id, bool async)
    {
        if (async)
            return session.ExecuteAsync(InsertSql, new { id });
        session.Execute(InsertSql, new { id });
        return Task.CompletedTask;
    }

    private async Task<Exception> Fail(Session session, string failure, bool async)
    {
        using var cancel = new CancellationTokenSource();
        (string sql, TimeSpan? timeout) = failure switch
        {
            "division by zero" => ("select 1 / 0", null),
            "unique violation" => (InsertSql.Replace("@id", "1", StringComparison.Ordinal), (TimeSpan?)null),
            "command timeout" => ("select pg_sleep(5)", TimeSpan.FromSeconds(1)),
            _ => ("select pg_sleep(5)", null),
        };
        if (failure == "cancel")
            cancel.CancelAfter(TimeSpan.FromMilliseconds(300));
        try
        {
            if (async || failure == "cancel")
                await session.ExecuteAsync(sql, timeout: timeout, cancellationToken: cancel.Token);
            else
                session.Execute(sql, timeout: timeout);
        }
        catch (Exception error)
        {
            return error;
        }

        throw new InvalidOperationException($"'{failure}' did not fail");
    }

    private static bool ConnectionBroke(Session session)
    {
        try
        {
            return session.Connection.State != System.Data.ConnectionState.Open;
        }
        catch (InvalidOperationException)
        {
            return true; // the session has no connection now: the last one broke
        }
    }

    private Task<int> Count() => _observer.ScalarAsync<int>(Text($"select count(*) from {_table}"));

    private Database Open(ExecutionMode mode)
    {
        Database db = new(_dialect.Factory, Servers.Postgres ?? "Host=unset", new OrseisOptions { Mode = mode });
        _owned.Add(db);
        return db;
    }

    private static string Text(string sql) => sql;

    public void Dispose()
    {
        try
        {
            if (Servers.Postgres is not null)
                _observer.Execute(Text($"drop table if exists {_table}"));
        }
        finally
        {
            foreach (Database db in _owned)
                db.Dispose();
        }
    }
}
