namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// Transactions that never lie: ending one while the session is busy changes nothing, and a transaction whose connection
/// died reports what the server did with its work. Every check reads the server's state from another connection.
/// </summary>
public abstract partial class ServerSuite
{
    protected async Task Commit_rollback_and_dispose_while_the_session_is_busy_change_nothing()
    {
        Database db = Seed();
        Database observer = Open(ExecutionMode.OpenPerCall);
        Session session = await db.OpenSessionAsync();
        SessionTransaction tx = await session.BeginTransactionAsync();
        await session.ExecuteAsync(Text($"insert into {Table} (id, name, amount, created) values (100, 'kept', 1, @d)"), new { d = DateTime.Today });

        // A call in flight (on another thread: MySql.Data's async calls run synchronously), seen running on the server.
        string marker = "orseis_busy_" + Guid.NewGuid().ToString("N")[..12];
        Task<int> running = Task.Run(() => session.ExecuteAsync(Dialect.MarkedSleepSql(2, marker)));
        await FindBackendAsync(observer, marker, running);
        await AssertBusyAsync(tx);
        await running;
        Assert.Same(tx, session.Transaction);
        Assert.Equal(0, await CountAsync(observer, 100));
        if (Dialect.InTransactionSql is { } inTransaction)
            Assert.Equal(1, await session.ScalarAsync<int>(inTransaction));

        // An unfinished sync stream, then an unfinished async stream.
        using (IEnumerator<int> reading = session.Stream<int>(Text($"select id from {Table} order by id")).GetEnumerator())
        {
            Assert.True(reading.MoveNext());
            await AssertBusyAsync(tx);
        }

        await using (IAsyncEnumerator<int> reading = session.StreamAsync<int>(Text($"select id from {Table} order by id")).GetAsyncEnumerator())
        {
            Assert.True(await reading.MoveNextAsync());
            await AssertBusyAsync(tx);
        }

        Assert.Same(tx, session.Transaction);
        await tx.CommitAsync();
        Assert.Null(session.Transaction);
        Assert.Equal(1, await CountAsync(observer, 100));
        if (Dialect.InTransactionSql is { } after)
            Assert.Equal(0, await session.ScalarAsync<int>(after));

        // An autocommit write after the commit survives the session.
        await session.ExecuteAsync(Text($"insert into {Table} (id, name, amount, created) values (101, 'after', 1, @d)"), new { d = DateTime.Today });
        await session.DisposeAsync();
        Assert.Equal(1, await CountAsync(observer, 101));
    }

    private static async Task AssertBusyAsync(SessionTransaction tx)
    {
        Assert.Throws<SessionBusyException>(tx.Commit);
        await Assert.ThrowsAsync<SessionBusyException>(() => tx.CommitAsync());
        Assert.Throws<SessionBusyException>(tx.Rollback);
        await Assert.ThrowsAsync<SessionBusyException>(() => tx.RollbackAsync());
        Assert.Throws<SessionBusyException>(tx.Dispose);
        await Assert.ThrowsAsync<SessionBusyException>(async () => await tx.DisposeAsync());
    }

    /// <summary>
    /// A connection killed inside a transaction: a commit says nothing was committed (or that it cannot know, when the
    /// break is only found by the commit itself), a rollback and a dispose succeed, the session reopens, the work is gone.
    /// </summary>
    protected async Task A_transaction_whose_connection_died_says_what_the_server_did()
    {
        Database db = Seed();
        Database observer = Open(ExecutionMode.OpenPerCall);
        foreach (string ending in new[] { "commit after a failed call", "commit", "commit async", "rollback", "rollback async", "dispose", "dispose async" })
        {
            await using Session session = await db.OpenSessionAsync();
            SessionTransaction tx = await session.BeginTransactionAsync();
            await session.ExecuteAsync(Text($"insert into {Table} (id, name, amount, created) values (300, 'lost', 1, @d)"), new { d = DateTime.Today });
            Kill(observer, await session.ScalarAsync<int>(Dialect.BackendIdSql));

            switch (ending)
            {
                case "commit after a failed call":
                    Assert.True(Assert.Throws<ConnectionBrokenException>(() => session.Scalar<int>("select 1")).InTransaction);
                    var known = Assert.Throws<ConnectionBrokenException>(tx.Commit);
                    Assert.True(known.InTransaction);
                    Assert.False(known.StatementMayHaveRun);
                    Assert.Contains("Nothing was committed", known.Message, StringComparison.Ordinal);
                    break;
                case "commit":
                    Assert.True(Assert.Throws<ConnectionBrokenException>(tx.Commit).InTransaction);
                    break;
                case "commit async":
                    Assert.True((await Assert.ThrowsAsync<ConnectionBrokenException>(() => tx.CommitAsync())).InTransaction);
                    break;
                case "rollback":
                    tx.Rollback();
                    break;
                case "rollback async":
                    await tx.RollbackAsync();
                    break;
                case "dispose":
                    tx.Dispose();
                    break;
                default:
                    await tx.DisposeAsync();
                    break;
            }

            tx.Dispose(); // ended: a second dispose does nothing
            Assert.Null(session.Transaction);
            Assert.Equal(1, await session.ScalarAsync<int>("select 1"));
            Assert.Equal(0, await CountAsync(observer, 300));
        }
    }

    /// <summary>Dapper's execute-many on the server: once per item, in every mode, and inside a session's transaction.</summary>
    protected async Task A_sequence_of_arguments_runs_once_per_item_in_every_mode()
    {
        Database db = Seed();
        string insert = Text($"insert into {Table} (id, name, amount, created) values (@Id, @Name, @Amount, @Created)");
        Item[] Batch(int from) => Enumerable.Range(from, 50).Select(i => new Item(i, "batch " + i, i, new DateTime(2024, 2, 1))).ToArray();
        Assert.Equal(50, await Open(ExecutionMode.OpenPerCall).ExecuteAsync(insert, Batch(1000)));
        Assert.Equal(50, Open(ExecutionMode.ReuseConnection).Execute(insert, Batch(2000)));
        await using (Session session = await db.OpenSessionAsync())
        {
            await using SessionTransaction tx = await session.BeginTransactionAsync();
            Assert.Equal(50, await session.ExecuteAsync(insert, Batch(3000)));
            Assert.Equal(50, session.Execute(insert, Batch(4000)));
            await tx.RollbackAsync();
        }

        Assert.Equal(100, await db.ScalarAsync<int>(Text($"select count(*) from {Table} where name like 'batch %'")));
    }

    private Task<int> CountAsync(Database db, int id) =>
        db.ScalarAsync<int>(Text($"select count(*) from {Table} where id = @id"), new { id });
}
