using System.Globalization;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// The integration suite every server runs: identical results in both modes, session state, concurrent misuse, a
/// connection killed by the server, rolled-back transactions. Each server's class calls these with its own attribute,
/// so a missing server skips (or, in CI, fails) visibly.
/// </summary>
public abstract partial class ServerSuite : IDisposable
{
    private readonly List<IDisposable> _owned = [];

    protected ServerSuite(Dialect dialect)
    {
        Dialect = dialect;
        Table = "orseis_items_" + Guid.NewGuid().ToString("N")[..10];
    }

    protected Dialect Dialect { get; }

    protected string Table { get; }

    public sealed record Item(int Id, string Name, decimal Amount, DateTime Created);

    public sealed record Key(int Id);

    private Database Open(ExecutionMode mode, string? connectionString = null, Action<OrseisOptions>? configure = null)
    {
        Database db = Dialect.Open(mode, connectionString, configure);
        _owned.Add(db);
        return db;
    }

    private Database Seed()
    {
        Database db = Open(ExecutionMode.OpenPerCall);
        db.Execute(Text($"create table {Table} (id int primary key, name varchar(100) not null, amount decimal(10,2) not null, created date not null)"));
        for (int i = 1; i <= 20; i++)
            db.Execute(Text($"insert into {Table} (id, name, amount, created) values (@id, @name, @amount, @created)"), new { id = i, name = "item " + i, amount = i * 1.25m, created = new DateTime(2024, 1, i) });
        return db;
    }

    protected async Task Both_modes_and_a_session_give_identical_results()
    {
        Seed();
        var results = new List<string>();
        foreach (ExecutionMode mode in new[] { ExecutionMode.OpenPerCall, ExecutionMode.ReuseConnection })
        {
            Database db = Open(mode);
            results.Add(await Snapshot(db));
            using Session session = await db.OpenSessionAsync();
            results.Add(await Snapshot(session));
        }

        Assert.All(results, r => Assert.Equal(results[0], r));
        Assert.Contains("item 20", results[0], StringComparison.Ordinal);
    }

    private async Task<string> Snapshot(SqlRunner runner)
    {
        List<Item> all = await runner.QueryAsync<Item>(Text($"select id, name, amount, created from {Table} order by id"));
        Item single = runner.QuerySingle<Item>(Text($"select id, name, amount, created from {Table} where id = @id"), new { id = 7 });
        int[] ids = [2, 4, 6];
        int counted = runner.Scalar<int>(Text($"select count(*) from {Table} where id in @ids"), new { ids });
        decimal sum = await runner.ScalarAsync<decimal>(Text($"select sum(amount) from {Table} where id <= @max"), new { max = 5 });
        var streamed = new List<int>();
        await foreach (Item item in runner.StreamAsync<Item>(Text($"select id, name, amount, created from {Table} where id > @min order by id"), new { min = 15 }))
            streamed.Add(item.Id);
        return string.Join("|", all.Select(i => $"{i.Id},{i.Name},{i.Amount},{i.Created:yyyy-MM-dd}")) + $"/{single}/{counted}/{sum}/{string.Join(",", streamed)}";
    }

    protected void Session_state_survives_in_reuse_modes_and_not_across_pooled_opens()
    {
        Database perCall = Open(ExecutionMode.OpenPerCall, Dialect.SingleConnectionPool);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        using Session session = perCall.OpenSession();

        foreach (SqlRunner keeper in new SqlRunner[] { reuse, session })
        {
            keeper.Execute(Dialect.CreateTempTableSql);
            keeper.Execute(Text($"insert into {Dialect.TempTable} (v) values (1)"));
            keeper.Scalar<object>(Dialect.SetSessionVariableSql, new { value = "kept" });
            Assert.Equal(1, keeper.Scalar<int>(Text($"select count(*) from {Dialect.TempTable}")));
            Assert.Equal("kept", keeper.Scalar<string>(Dialect.GetSessionVariableSql));
        }

        session.Dispose();

        // Open-per-call with a pool of one: the same server session every time, reset by the pool between opens.
        int first = perCall.Scalar<int>(Dialect.BackendIdSql);
        perCall.Scalar<object>(Dialect.SetSessionVariableSql, new { value = "lost" });
        Assert.Equal(first, perCall.Scalar<int>(Dialect.BackendIdSql));
        Assert.True(string.IsNullOrEmpty(perCall.Scalar<string>(Dialect.GetSessionVariableSql)), "a session variable survived a pooled open");
        Assert.ThrowsAny<Exception>(() => perCall.Scalar<int>(Text($"select count(*) from {Dialect.TempTable}")));
    }

    protected async Task Concurrent_use_of_one_session_is_caught()
    {
        Seed();
        Database db = Open(ExecutionMode.OpenPerCall);
        await using Session session = await db.OpenSessionAsync();
        await using IAsyncEnumerator<Item> reading = session.StreamAsync<Item>(Text($"select id, name, amount, created from {Table}")).GetAsyncEnumerator();
        Assert.True(await reading.MoveNextAsync());
        await Assert.ThrowsAsync<SessionBusyException>(() => Task.Run(() => session.ScalarAsync<int>("select 1")));
        await reading.DisposeAsync();
        Assert.Equal(20, await session.ScalarAsync<int>(Text($"select count(*) from {Table}")));
    }

    /// <summary>
    /// A token cancelled while the server runs a 30 s statement stops it (the call throws well before the 30 s are up),
    /// in every mode, and the kept connection serves the next call. Bounded: at most 30 s per mode if cancellation fails.
    /// </summary>
    protected async Task A_cancelled_statement_stops_on_the_server_and_the_connection_is_usable_after()
    {
        Database perCall = Open(ExecutionMode.OpenPerCall);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        await using Session session = await perCall.OpenSessionAsync();
        foreach ((string mode, SqlRunner runner) in new (string, SqlRunner)[] { ("OpenPerCall", perCall), ("ReuseConnection", reuse), ("Session", session) })
        {
            using var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(300));
            var clock = System.Diagnostics.Stopwatch.StartNew();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => runner.ExecuteAsync(Dialect.SleepSql, cancellationToken: cancel.Token));
            Assert.True(clock.Elapsed < TimeSpan.FromSeconds(20), $"{mode}: the cancelled statement ran {clock.Elapsed.TotalSeconds:0.0} s of its 30");
            Assert.Equal(1, await runner.ScalarAsync<int>("select 1"));
        }

        using var cancelStream = new CancellationTokenSource(TimeSpan.FromMilliseconds(300));
        var streamClock = System.Diagnostics.Stopwatch.StartNew();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () =>
        {
            await foreach (int _ in session.StreamAsync<int>(Dialect.SleepSql, cancellationToken: cancelStream.Token))
            {
            }
        });
        Assert.True(streamClock.Elapsed < TimeSpan.FromSeconds(20), $"stream: the cancelled statement ran {streamClock.Elapsed.TotalSeconds:0.0} s of its 30");
        Assert.Equal(1, await session.ScalarAsync<int>("select 1"));
    }

    protected void A_killed_session_connection_is_reported_and_reopened_outside_a_transaction()
    {
        Database db = Open(ExecutionMode.OpenPerCall);
        using Session session = db.OpenSession();
        int victim = session.Scalar<int>(Dialect.BackendIdSql);
        Kill(db, victim);

        var error = Assert.Throws<ConnectionBrokenException>(() => session.Scalar<int>("select 1"));
        Assert.False(error.InTransaction);
        Assert.NotNull(error.InnerException);
        Assert.Contains("next call opens a new connection", error.Message, StringComparison.Ordinal);

        Assert.Equal(1, session.Scalar<int>("select 1"));
        Assert.Equal(1, session.Reopens);
        Assert.NotEqual(victim, session.Scalar<int>(Dialect.BackendIdSql));
    }

    protected async Task A_killed_connection_under_a_stream_is_reported_and_reopened()
    {
        // A stream reads through its own code path (an iterator cannot catch around a yield), so it is checked apart.
        Database db = Open(ExecutionMode.OpenPerCall);
        await using Session session = await db.OpenSessionAsync();
        int victim = session.Scalar<int>(Dialect.BackendIdSql);
        Kill(db, victim);
        var error = Assert.Throws<ConnectionBrokenException>(() => session.Stream<int>("select 1").ToList());
        Assert.False(error.InTransaction);
        Assert.Equal([1], session.Stream<int>("select 1").ToList());

        Kill(db, session.Scalar<int>(Dialect.BackendIdSql));
        await Assert.ThrowsAsync<ConnectionBrokenException>(async () =>
        {
            await foreach (int _ in session.StreamAsync<int>("select 1"))
            {
            }
        });
        Assert.Equal(1, await session.ScalarAsync<int>("select 1"));
        Assert.Equal(2, session.Reopens);
    }

    protected void A_killed_reuse_connection_is_reported_and_reopened()
    {
        Database killer = Open(ExecutionMode.OpenPerCall);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        int victim = reuse.Scalar<int>(Dialect.BackendIdSql);
        Kill(killer, victim);
        Assert.Throws<ConnectionBrokenException>(() => reuse.Scalar<int>("select 1"));
        Assert.NotEqual(victim, reuse.Scalar<int>(Dialect.BackendIdSql));
    }

    protected void A_connection_killed_inside_a_transaction_throws_until_the_transaction_is_disposed()
    {
        Database db = Seed();
        using Session session = db.OpenSession();
        SessionTransaction tx = session.BeginTransaction();
        session.Execute(Text($"insert into {Table} (id, name, amount, created) values (100, 'lost', 1, @d)"), new { d = DateTime.Today });
        Kill(db, session.Scalar<int>(Dialect.BackendIdSql));

        var first = Assert.Throws<ConnectionBrokenException>(() => session.Scalar<int>("select 1"));
        Assert.True(first.InTransaction);
        var again = Assert.Throws<ConnectionBrokenException>(() => session.Scalar<int>("select 1"));
        Assert.True(again.InTransaction);

        tx.Dispose();
        Assert.Equal(1, session.Scalar<int>("select 1"));
        Assert.Equal(0, db.Scalar<int>(Text($"select count(*) from {Table} where id = 100")));
    }

    protected async Task A_rolled_back_transaction_leaves_nothing_behind()
    {
        Database db = Seed();
        await using (Session session = await db.OpenSessionAsync())
        {
            await using SessionTransaction tx = await session.BeginTransactionAsync();
            await session.ExecuteAsync(Text($"delete from {Table} where id <= @max"), new { max = 10 });
            await session.ExecuteAsync(Text($"insert into {Table} (id, name, amount, created) values (200, 'temp', 2, @d)"), new { d = DateTime.Today });
            Assert.Equal(11, await session.ScalarAsync<int>(Text($"select count(*) from {Table}")));
            await tx.RollbackAsync();
        }

        Assert.Equal(20, await db.ScalarAsync<int>(Text($"select count(*) from {Table}")));
        Assert.Equal(0, await db.ScalarAsync<int>(Text($"select count(*) from {Table} where id = 200")));
    }

    protected async Task An_error_after_the_scalar_value_is_thrown_not_lost()
    {
        // ExecuteScalar semantics, and Dapper's for every buffered read: the statement after the rows runs, and its
        // failure reaches the caller.
        Database db = Open(ExecutionMode.ReuseConnection);
        const string Then = "select 1 as Id; select * from orseis_no_such_table";
        Assert.ThrowsAny<System.Data.Common.DbException>(() => db.Scalar<int>(Then));
        await Assert.ThrowsAnyAsync<System.Data.Common.DbException>(() => db.ScalarAsync<int>(Then));
        Assert.ThrowsAny<System.Data.Common.DbException>(() => db.Query<int>(Then));
        await Assert.ThrowsAnyAsync<System.Data.Common.DbException>(() => db.QueryAsync<int>(Then));
        Assert.ThrowsAny<System.Data.Common.DbException>(() => db.QueryFirst<int>(Then));
        await Assert.ThrowsAnyAsync<System.Data.Common.DbException>(() => db.QueryFirstOrDefaultAsync<int>(Then));
        Assert.ThrowsAny<System.Data.Common.DbException>(() => db.QuerySingle<int>(Then));
        await Assert.ThrowsAnyAsync<System.Data.Common.DbException>(() => db.QuerySingleOrDefaultAsync<int>(Then));
        Assert.ThrowsAny<System.Data.Common.DbException>(() => db.Query<Key, Key, int>(
            "select 1 as Id, 2 as Id; select * from orseis_no_such_table", (a, b) => a.Id + b.Id));
        Assert.Equal(2, db.Scalar<int>("select 2"));
    }

    protected void Interpolated_sql_is_parameterised_on_the_server()
    {
        // Holes of an interpolated string passed alone are parameters, so identifiers must be literal text here.
        Database db = Open(ExecutionMode.OpenPerCall);
        db.Execute("drop table if exists orseis_interpolated");
        db.Execute("create table orseis_interpolated (id int primary key, name varchar(200) not null)");
        try
        {
            string hostile = "x'); drop table orseis_interpolated; --";
            db.Execute($"insert into orseis_interpolated (id, name) values ({300}, {hostile})");
            Assert.Equal(hostile, db.Scalar<string>($"select name from orseis_interpolated where id = {300}"));
            Assert.Equal(1, db.Scalar<int>($"select count(*) from orseis_interpolated where name = {hostile}"));
            Assert.Equal(0, db.Scalar<int>($"select count(*) from orseis_interpolated where id in {Array.Empty<int>()}"));
            Assert.Equal(1, db.Scalar<int>($"select count(*) from orseis_interpolated where id not in {new List<int>()}"));
            Assert.Equal(0, db.Scalar<int>("select count(*) from orseis_interpolated where id in @ids", new { ids = Array.Empty<int>() }));
        }
        finally
        {
            db.Execute("drop table if exists orseis_interpolated");
        }
    }

    /// <summary>Builds SQL text with the table name in it (a plain string, so Orseis does not parameterise the hole).</summary>
    private static string Text(string sql) => sql;

    private void Kill(Database db, int backend)
    {
        if (Dialect.KillSql.Contains("{0}", StringComparison.Ordinal))
            db.Execute(string.Format(CultureInfo.InvariantCulture, Dialect.KillSql, backend));
        else
            db.Scalar<object>(Dialect.KillSql, new { id = backend });
    }

    public void Dispose()
    {
        try
        {
            using Database cleanup = Dialect.Open(ExecutionMode.OpenPerCall);
            cleanup.Execute(Text($"drop table if exists {Table}"));
        }
        catch (Exception)
        {
            // The server may be unreachable (the test failed for that reason); there is nothing to clean.
        }

        foreach (IDisposable owned in _owned)
            owned.Dispose();
        GC.SuppressFinalize(this);
    }
}
