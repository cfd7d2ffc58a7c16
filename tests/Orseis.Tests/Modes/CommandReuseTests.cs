using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Modes;

/// <summary>
/// A kept connection (a session, or a ReuseConnection database's shared one) runs its calls on one command, handed
/// from call to call: each call still gets its own parameters, timeout and transaction, a failed call's command is
/// never handed out again, and closing disposes it. Open-per-call creates a command per call.
/// </summary>
public sealed class CommandReuseTests : IDisposable
{
    private readonly SqliteFile _file = new();
    private readonly RecordingDataSource _source;
    private readonly Database _database;

    public CommandReuseTests()
    {
        _source = new RecordingDataSource(_file.ConnectionString);
        using (Database setup = _file.Open())
        {
            setup.Execute("create table items (id integer primary key, name text not null)");
            for (int i = 1; i <= 5; i++)
                setup.Execute("insert into items (id, name) values (@i, @name)", new { i, name = "item " + i });
        }

        _database = new Database(_source, new OrseisOptions { Mode = ExecutionMode.ReuseConnection });
    }

    public void Dispose()
    {
        _database.Dispose();
        _source.Dispose();
        _file.Dispose();
    }

    public static TheoryData<bool> KeptKinds => new() { true, false };

    public sealed record Item(long Id, string Name);

    private const string ById = "select id, name from items where id = @id";

    /// <summary>Runs <paramref name="test"/> on a session (when <paramref name="session"/>) or on the ReuseConnection database.</summary>
    private void OnKept(bool session, Action<SqlRunner> test)
    {
        if (!session)
        {
            test(_database);
            return;
        }

        using Session opened = _database.OpenSession();
        test(opened);
    }

    [Theory]
    [MemberData(nameof(KeptKinds))]
    public void Calls_with_other_parameters_share_one_command_and_each_reads_its_own_row(bool session) => OnKept(session, db =>
    {
        int before = _source.CommandsCreated;
        for (int pass = 0; pass < 3; pass++)
        {
            for (long id = 1; id <= 5; id++)
                Assert.Equal(new Item(id, "item " + id), db.QuerySingle<Item>(ById, new { id }));
        }

        Assert.Equal(1, _source.CommandsCreated - before);
        Assert.Equal(15, _source.Executions.Count);
        Assert.Single(_source.Executions.Select(e => e.Command).Distinct());
    });

    [Fact]
    public void Sqlite_gets_member_parameters_under_the_name_the_sql_writes_prefix_included()
    {
        using Database perCall = new(_source);
        Assert.Equal("item 2", perCall.Scalar<string>("select name from items where id = @Id", new { id = 2 }));
        Assert.Equal("item 3", perCall.Scalar<string>("select name from items where id = :ID", new { id = 3 }));
        Assert.Equal("item 4", perCall.Scalar<string>("select name from items where id = $id", new { Id = 4 }));
        Assert.Equal([["@Id"], [":ID"], ["$id"]], _source.Executions.Select(e => e.ParameterNames));
    }

    [Fact]
    public void Open_per_call_creates_a_command_per_call_and_disposes_each()
    {
        using Database perCall = new(_source);
        for (long id = 1; id <= 3; id++)
            Assert.Equal(new Item(id, "item " + id), perCall.QuerySingle<Item>(ById, new { id }));
        Assert.Equal(3, _source.CommandsCreated);
        Assert.All(_source.Executions, e => Assert.True(_source.Disposed.ContainsKey(e.Command)));
    }

    [Theory]
    [MemberData(nameof(KeptKinds))]
    public void Different_texts_and_list_lengths_run_their_own_text(bool session) => OnKept(session, db =>
    {
        Assert.Equal([1L, 2L], db.Query<long>("select id from items where id in @ids order by id", new { ids = new[] { 1, 2 } }));
        Assert.Equal([1L, 2L, 3L], db.Query<long>("select id from items where id in @ids order by id", new { ids = new[] { 1, 2, 3 } }));
        Assert.Equal("item 4", db.Scalar<string>("select name from items where id = @id", new { id = 4 }));
        Assert.Equal(5, db.Scalar<long>("select count(*) from items"));
        Assert.Equal(new Item(2, "item 2"), db.QuerySingle<Item>(ById, new { id = 2 }));
        Assert.Equal(
            ["select id from items where id in (@ids0, @ids1) order by id", "select id from items where id in (@ids0, @ids1, @ids2) order by id",
             "select name from items where id = @id", "select count(*) from items", ById],
            _source.Executions.Select(e => e.Text));
    });

    [Theory]
    [MemberData(nameof(KeptKinds))]
    public void A_call_timeout_applies_to_that_call_only(bool session) => OnKept(session, db =>
    {
        Assert.Equal(new Item(1, "item 1"), db.QuerySingle<Item>(ById, new { id = 1 }));
        Assert.Equal(new Item(2, "item 2"), db.QuerySingle<Item>(ById, new { id = 2 }, TimeSpan.FromSeconds(7)));
        Assert.Equal(new Item(3, "item 3"), db.QuerySingle<Item>(ById, new { id = 3 }));
        Assert.Equal(new Item(4, "item 4"), db.QuerySingle<Item>(ById, new { id = 4 }, Timeout.InfiniteTimeSpan));
        Assert.Equal(new Item(5, "item 5"), db.QuerySingle<Item>(ById, new { id = 5 }));
        Assert.Equal([30, 7, 30, 0, 30], _source.Executions.Select(e => e.Timeout));
        Assert.Single(_source.Executions.Select(e => e.Command).Distinct());
    });

    [Fact]
    public void The_database_default_timeout_is_applied_to_every_call_on_a_kept_connection()
    {
        using Database withDefault = new(_source, new OrseisOptions { Mode = ExecutionMode.ReuseConnection, CommandTimeout = TimeSpan.FromSeconds(12) });
        withDefault.QuerySingle<Item>(ById, new { id = 1 });
        withDefault.QuerySingle<Item>(ById, new { id = 2 }, TimeSpan.FromSeconds(3));
        withDefault.QuerySingle<Item>(ById, new { id = 3 });
        Assert.Equal([12, 3, 12], _source.Executions.Select(e => e.Timeout));
    }

    [Fact]
    public void Calls_before_inside_and_after_a_transaction_each_run_in_the_right_one()
    {
        using Session session = _database.OpenSession();
        Assert.Equal("item 1", session.Scalar<string>("select name from items where id = @id", new { id = 1 }));
        using (SessionTransaction transaction = session.BeginTransaction())
        {
            session.Execute("update items set name = @name where id = @id", new { id = 1, name = "changed" });
            Assert.Equal("changed", session.Scalar<string>("select name from items where id = @id", new { id = 1 }));
        }

        Assert.Equal("item 1", session.Scalar<string>("select name from items where id = @id", new { id = 1 }));
        using (SessionTransaction transaction = session.BeginTransaction())
        {
            session.Execute("update items set name = @name where id = @id", new { id = 2, name = "kept" });
            transaction.Commit();
        }

        Assert.Equal("kept", session.Scalar<string>("select name from items where id = @id", new { id = 2 }));
        // SQLite runs BEGIN, ROLLBACK and COMMIT on commands of its own: only Orseis' calls are checked.
        RecordingDataSource.Execution[] runs = [.. _source.Executions.Where(e => e.Text.Contains("items", StringComparison.Ordinal))];
        Assert.Equal([false, true, true, false, true, false], runs.Select(e => e.Transaction is not null));
        Assert.NotSame(runs[1].Transaction, runs[4].Transaction);
    }

    [Theory]
    [MemberData(nameof(KeptKinds))]
    public void A_failed_call_does_not_hand_its_command_to_the_next_call(bool session) => OnKept(session, db =>
    {
        Assert.Equal(new Item(1, "item 1"), db.QuerySingle<Item>(ById, new { id = 1 }));
        Assert.Throws<InvalidOperationException>(() => db.QuerySingle<Item>("select id, name from items where id > @id", new { id = 1 }));
        Assert.ThrowsAny<Exception>(() => db.Execute("select nope from nowhere where id = @id", new { id = 1 }));
        Assert.Equal(new Item(2, "item 2"), db.QuerySingle<Item>(ById, new { id = 2 }));
        Assert.Equal(new Item(3, "item 3"), db.QuerySingle<Item>(ById, new { id = 3 }));

        RecordingDataSource.Execution[] runs = [.. _source.Executions];
        Assert.Same(runs[0].Command, runs[1].Command);
        Assert.True(_source.Disposed.ContainsKey(runs[1].Command));
        Assert.NotSame(runs[1].Command, runs[^2].Command);
        Assert.Same(runs[^2].Command, runs[^1].Command);
        Assert.False(_source.Disposed.ContainsKey(runs[^1].Command));
    });

    [Fact]
    public void Closing_a_session_disposes_its_command()
    {
        System.Data.Common.DbCommand command;
        using (Session session = _database.OpenSession())
        {
            session.QuerySingle<Item>(ById, new { id = 1 });
            command = Assert.Single(_source.Executions).Command;
            Assert.False(_source.Disposed.ContainsKey(command));
        }

        Assert.True(_source.Disposed.ContainsKey(command));
    }

    [Fact]
    public void Disposing_a_reuse_connection_database_disposes_its_command()
    {
        _database.QuerySingle<Item>(ById, new { id = 1 });
        System.Data.Common.DbCommand command = Assert.Single(_source.Executions).Command;
        Assert.False(_source.Disposed.ContainsKey(command));
        _database.Dispose();
        Assert.True(_source.Disposed.ContainsKey(command));
    }

    [Fact]
    public async Task Concurrent_calls_on_a_reuse_connection_database_each_read_their_own_row()
    {
        Task[] callers = [.. Enumerable.Range(0, 8).Select(worker => Task.Run(async () =>
        {
            for (int i = 0; i < 50; i++)
            {
                long id = (worker + i) % 5 + 1;
                Item item = i % 2 == 0 ? _database.QuerySingle<Item>(ById, new { id }) : await _database.QuerySingleAsync<Item>(ById, new { id });
                Assert.Equal(new Item(id, "item " + id), item);
            }
        }))];
        await Task.WhenAll(callers);
        Assert.Equal(400, _source.Executions.Count);
    }

    [Fact]
    public async Task Async_calls_on_a_session_share_the_command_too()
    {
        await using Session session = await _database.OpenSessionAsync();
        for (long id = 1; id <= 5; id++)
            Assert.Equal(new Item(id, "item " + id), await session.QuerySingleAsync<Item>(ById, new { id }));
        Assert.Single(_source.Executions.Select(e => e.Command).Distinct());
    }
}
