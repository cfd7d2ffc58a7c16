using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Modes;

/// <summary>
/// A transaction's Commit, Rollback and Dispose take part in the session's one-call-at-a-time rule, on SQLite (the
/// same rules are checked against real servers, with their own view of the transaction, in the integration suite).
/// </summary>
public sealed class TransactionGuardTests
{
    [Fact]
    public async Task Ending_a_transaction_while_a_stream_is_open_throws_and_changes_nothing()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        using Session session = db.Database.OpenSession();
        SessionTransaction tx = session.BeginTransaction();
        session.Execute("insert into people (id, name) values (100, 'kept')");

        using (IEnumerator<Person> open = session.Stream<Person>("select id, name from people").GetEnumerator())
        {
            Assert.True(open.MoveNext());
            var error = Assert.Throws<SessionBusyException>(tx.Commit);
            Assert.Contains("transaction is still open", error.Message, StringComparison.Ordinal);
            Assert.Throws<SessionBusyException>(tx.Rollback);
            Assert.Throws<SessionBusyException>(tx.Dispose);
            await Assert.ThrowsAsync<SessionBusyException>(() => tx.CommitAsync());
            await Assert.ThrowsAsync<SessionBusyException>(() => tx.RollbackAsync());
            await Assert.ThrowsAsync<SessionBusyException>(async () => await tx.DisposeAsync());
            Assert.Same(tx, session.Transaction);
        }

        tx.Commit();
        Assert.Null(session.Transaction);
        Assert.Equal(1, db.Database.Scalar<int>("select count(*) from people where id = 100"));
    }

    [Fact]
    public void A_transaction_ends_once_and_a_second_end_says_so()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        using Session session = db.Database.OpenSession();
        SessionTransaction tx = session.BeginTransaction();
        session.Execute("delete from people");
        tx.Rollback();
        Assert.Throws<InvalidOperationException>(tx.Commit);
        Assert.Throws<InvalidOperationException>(tx.Rollback);
        tx.Dispose();
        Assert.Equal(5, session.Scalar<int>("select count(*) from people"));

        // A session disposed with its transaction open rolls it back, and the transaction is over.
        Session other = db.Database.OpenSession();
        SessionTransaction open = other.BeginTransaction();
        other.Execute("delete from people");
        other.Dispose();
        open.Dispose();
        Assert.Throws<InvalidOperationException>(open.Commit);
        Assert.Equal(5, db.Database.Scalar<int>("select count(*) from people"));
    }

    [Fact]
    public async Task A_commit_that_fails_closes_the_connection_so_nothing_half_done_stays_on_the_server()
    {
        // SQLite refuses a commit while a deferred foreign key is violated: the transaction is still open on the
        // connection. Orseis closes the connection (rolling the transaction back) and says so.
        using var file = new SqliteFile();
        using Database db = file.Open(configure: o => o.Mode = ExecutionMode.OpenPerCall);
        db.Execute("create table parent (id integer primary key)");
        db.Execute("create table child (id integer primary key, parent integer references parent(id) deferrable initially deferred)");
        await using Session session = await db.OpenSessionAsync();
        session.Execute("pragma foreign_keys = on");
        SessionTransaction tx = await session.BeginTransactionAsync();
        session.Execute("insert into child (id, parent) values (1, 42)");

        var error = await Assert.ThrowsAsync<OrseisException>(() => tx.CommitAsync());
        Assert.Contains("closed the connection", error.Message, StringComparison.Ordinal);
        Assert.NotNull(error.InnerException);
        Assert.Null(session.Transaction);
        Assert.Equal(1, session.Reopens);
        Assert.Equal(0, session.Scalar<int>("select count(*) from child"));
        Assert.Equal(0, db.Scalar<int>("select count(*) from child"));
    }
}
