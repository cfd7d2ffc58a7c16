using System.Data.Common;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>Every call form, sync and async, gives the same answers in each of the three ways of running it.</summary>
public sealed class QueryApiTests
{
    [Theory]
    [MemberData(nameof(SeededDatabase.AllKinds), MemberType = typeof(SeededDatabase))]
    public async Task Scalar_returns_the_first_column_of_the_first_row(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        Assert.Equal(5, db.Runner.Scalar<int>("select count(*) from people"));
        Assert.Equal(5L, await db.Runner.ScalarAsync<long>("select count(*) from people"));
        Assert.Equal("person 2", db.Runner.Scalar<string>("select name from people where id = @id", new { id = 2 }));
        Assert.Null(db.Runner.Scalar<string>("select name from people where id = -1"));
        Assert.Null(await db.Runner.ScalarAsync<int?>("select age from people where id = 5"));
    }

    [Theory]
    [MemberData(nameof(SeededDatabase.AllKinds), MemberType = typeof(SeededDatabase))]
    public async Task Execute_returns_rows_affected(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        Assert.Equal(2, db.Runner.Execute("update people set age = age + 1 where id <= @max", new { max = 2 }));
        Assert.Equal(1, await db.Runner.ExecuteAsync("delete from people where id = @id", new { id = 1 }));
        Assert.Equal(4, db.Runner.Scalar<int>("select count(*) from people"));
        Assert.Equal(23, db.Runner.Scalar<int>("select age from people where id = 2"));
    }

    [Theory]
    [MemberData(nameof(SeededDatabase.AllKinds), MemberType = typeof(SeededDatabase))]
    public async Task Query_buffers_every_row_in_order(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        List<Person> sync = db.Runner.Query<Person>("select id, name, age from people order by id");
        List<Person> async = await db.Runner.QueryAsync<Person>("select id, name, age from people order by id");
        Assert.Equal([1L, 2, 3, 4, 5], sync.Select(p => p.Id));
        Assert.Equal(sync.Select(p => (p.Id, p.Name, p.Age)), async.Select(p => (p.Id, p.Name, p.Age)));
        Assert.Null(sync[4].Age);
        Assert.Empty(db.Runner.Query<Person>("select id, name, age from people where id < 0"));
    }

    [Theory]
    [MemberData(nameof(SeededDatabase.AllKinds), MemberType = typeof(SeededDatabase))]
    public async Task Single_and_first_forms_follow_their_row_rules(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        const string One = "select id, name, age from people where id = 3";
        const string None = "select id, name, age from people where id = -1";
        const string Many = "select id, name, age from people order by id";

        Assert.Equal(3, db.Runner.QuerySingle<Person>(One).Id);
        Assert.Equal(3, (await db.Runner.QuerySingleAsync<PersonRecord>(One)).Id);
        Assert.Equal(1, db.Runner.QueryFirst<Person>(Many).Id);
        Assert.Equal(1, (await db.Runner.QueryFirstAsync<Person>(Many)).Id);
        Assert.Null(db.Runner.QuerySingleOrDefault<Person>(None));
        Assert.Null(await db.Runner.QuerySingleOrDefaultAsync<Person>(None));
        Assert.Null(db.Runner.QueryFirstOrDefault<Person>(None));
        Assert.Equal(1, (await db.Runner.QueryFirstOrDefaultAsync<Person>(Many))!.Id);

        var noneError = Assert.Throws<InvalidOperationException>(() => db.Runner.QuerySingle<Person>(None));
        Assert.Contains("returned none", noneError.Message, StringComparison.Ordinal);
        Assert.Throws<InvalidOperationException>(() => db.Runner.QueryFirst<Person>(None));
        await Assert.ThrowsAsync<InvalidOperationException>(() => db.Runner.QueryFirstAsync<Person>(None));
        var manyError = Assert.Throws<InvalidOperationException>(() => db.Runner.QuerySingle<Person>(Many));
        Assert.Contains("more than one", manyError.Message, StringComparison.Ordinal);
        var orDefaultError = Assert.Throws<InvalidOperationException>(() => db.Runner.QuerySingleOrDefault<Person>(Many));
        Assert.Contains("more than one", orDefaultError.Message, StringComparison.Ordinal);
        await Assert.ThrowsAsync<InvalidOperationException>(() => db.Runner.QuerySingleOrDefaultAsync<Person>(Many));

        // The runner is still usable after every one of those errors.
        Assert.Equal(5, db.Runner.Scalar<int>("select count(*) from people"));
    }

    [Theory]
    [MemberData(nameof(SeededDatabase.AllKinds), MemberType = typeof(SeededDatabase))]
    public async Task Streams_yield_every_row_lazily(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        IEnumerable<Person> lazy = db.Runner.Stream<Person>("select id, name, age from people order by id");
        db.Runner.Execute("insert into people (id, name) values (6, 'late')"); // runs before enumeration starts
        Assert.Equal([1L, 2, 3, 4, 5, 6], lazy.Select(p => p.Id));

        var ids = new List<long>();
        await foreach (Person p in db.Runner.StreamAsync<Person>("select id, name, age from people order by id"))
            ids.Add(p.Id);
        Assert.Equal([1L, 2, 3, 4, 5, 6], ids);
    }

    [Theory]
    [MemberData(nameof(SeededDatabase.AllKinds), MemberType = typeof(SeededDatabase))]
    public async Task Async_calls_honour_a_cancelled_token(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => db.Runner.ScalarAsync<int>("select 1", cancellationToken: cancelled.Token));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => db.Runner.QueryAsync<Person>("select * from people", cancellationToken: cancelled.Token));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () =>
        {
            await foreach (Person _ in db.Runner.StreamAsync<Person>("select * from people").WithCancellation(cancelled.Token))
            {
            }
        });
        Assert.Equal(1, await db.Runner.ScalarAsync<int>("select 1"));
    }

    [Fact]
    public void A_negative_call_timeout_is_refused_with_its_name()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => db.Runner.Scalar<int>("select 1", timeout: TimeSpan.FromSeconds(-1)));
        Assert.Equal("timeout", error.ParamName);
    }

    [Fact]
    public void Provider_errors_pass_through_unchanged()
    {
        using var db = new SeededDatabase(RunnerKind.Session);
        var error = Assert.Throws<Microsoft.Data.Sqlite.SqliteException>(() => db.Runner.Execute("select * from no_such_table"));
        Assert.Contains("no_such_table", error.Message, StringComparison.Ordinal);
        Assert.Equal(1, db.Runner.Scalar<int>("select 1"));
    }

    [Theory]
    [MemberData(nameof(SeededDatabase.AllKinds), MemberType = typeof(SeededDatabase))]
    public async Task A_failure_in_a_statement_after_the_rows_is_thrown_by_every_buffered_read(RunnerKind kind)
    {
        // The second statement overflows: SQLite reports it only when the reader moves on to it.
        using var db = new SeededDatabase(kind);
        const string Then = "select id, name from people where id = 1; select abs(-9223372036854775807 - 1)";
        SqlRunner runner = db.Runner;
        Assert.ThrowsAny<DbException>(() => runner.Query<Person>(Then));
        await Assert.ThrowsAnyAsync<DbException>(() => runner.QueryAsync<Person>(Then));
        Assert.ThrowsAny<DbException>(() => runner.QueryFirst<Person>(Then));
        Assert.ThrowsAny<DbException>(() => runner.QueryFirstOrDefault<Person>(Then));
        await Assert.ThrowsAnyAsync<DbException>(() => runner.QuerySingleAsync<Person>(Then));
        Assert.ThrowsAny<DbException>(() => runner.QuerySingleOrDefault<Person>(Then));
        Assert.ThrowsAny<DbException>(() => runner.QuerySingleOrDefault<Person>(
            "select id, name from people where id = 99; select abs(-9223372036854775807 - 1)"));
        Assert.ThrowsAny<DbException>(() => runner.Query<Person, Person, long>(
            "select id, name, id, name from people; select abs(-9223372036854775807 - 1)", (a, b) => a.Id + b.Id, splitOn: "id"));

        // Without a failing statement after them, the rows are read as before.
        Assert.Equal("person 1", runner.QuerySingle<Person>("select id, name from people where id = 1; select 2").Name);
        Assert.Equal(5, runner.Query<Person>("select id, name from people; select 2").Count);
    }
}
