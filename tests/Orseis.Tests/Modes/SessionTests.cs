using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Modes;

public sealed class SessionTests
{
    [Fact]
    public void A_call_inside_a_stream_on_the_same_session_is_refused_clearly()
    {
        using var db = new SeededDatabase(RunnerKind.Session);
        var error = Assert.Throws<SessionBusyException>(() =>
        {
            foreach (Person p in db.Runner.Stream<Person>("select id, name from people"))
                db.Runner.Scalar<int>("select count(*) from people where id = @id", new { p.Id });
        });
        Assert.Contains("one command at a time", error.Message, StringComparison.Ordinal);
        Assert.Equal(5, db.Runner.Scalar<int>("select count(*) from people"));
    }

    [Fact]
    public async Task Concurrent_use_from_another_flow_is_refused_while_a_stream_holds_the_session()
    {
        using var db = new SeededDatabase(RunnerKind.Session);
        await using IAsyncEnumerator<Person> open = db.Runner.StreamAsync<Person>("select id, name from people").GetAsyncEnumerator();
        Assert.True(await open.MoveNextAsync());

        await Assert.ThrowsAsync<SessionBusyException>(() => Task.Run(() => db.Runner.QueryAsync<Person>("select id, name from people")));
        await Assert.ThrowsAsync<SessionBusyException>(() => Task.Run(() => db.Runner.ExecuteAsync("delete from people")));

        await open.DisposeAsync();
        Assert.Equal(5, await db.Runner.ScalarAsync<int>("select count(*) from people"));
    }

    [Fact]
    public void Session_state_survives_between_calls()
    {
        using var file = new SqliteFile();
        using Database db = file.Open();
        using Session session = db.OpenSession();
        session.Execute("create temp table scratch (v integer)");
        session.Execute("insert into scratch values (1), (2)");
        Assert.Equal(2, session.Scalar<int>("select count(*) from scratch"));
    }

    [Fact]
    public async Task A_committed_transaction_keeps_its_work_and_a_rolled_back_one_leaves_nothing()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        using (Session session = db.Database.OpenSession())
        {
            using (SessionTransaction tx = session.BeginTransaction())
            {
                session.Execute("insert into people (id, name) values (10, 'ten')");
                Assert.Same(tx, session.Transaction);
                tx.Commit();
            }

            await using (SessionTransaction tx = await session.BeginTransactionAsync())
            {
                await session.ExecuteAsync("insert into people (id, name) values (11, 'eleven')");
                Assert.Equal(7, session.Scalar<int>("select count(*) from people"));
                await tx.RollbackAsync();
            }

            using (session.BeginTransaction())
                session.Execute("insert into people (id, name) values (12, 'twelve')"); // disposed without commit: rolled back

            Assert.Null(session.Transaction);
        }

        Assert.Equal([10L], db.Database.Query<long>("select id from people where id >= 10"));
    }

    [Fact]
    public void Transactions_do_not_nest_and_do_not_end_twice()
    {
        using var db = new SeededDatabase(RunnerKind.Session);
        var session = (Session)db.Runner;
        using SessionTransaction tx = session.BeginTransaction();
        Assert.Throws<InvalidOperationException>(() => session.BeginTransaction());
        tx.Commit();
        Assert.Throws<InvalidOperationException>(() => tx.Rollback());
    }

    [Fact]
    public void Disposing_a_session_rolls_back_its_open_transaction_and_refuses_later_calls()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        Session session = db.Database.OpenSession();
        session.BeginTransaction();
        session.Execute("delete from people");
        session.Dispose();
        Assert.Throws<ObjectDisposedException>(() => session.Scalar<int>("select 1"));
        Assert.Equal(5, db.Database.Scalar<int>("select count(*) from people"));
    }
}
