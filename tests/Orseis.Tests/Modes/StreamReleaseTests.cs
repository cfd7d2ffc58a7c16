using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Modes;

/// <summary>
/// A stream left early (break, exception) disposes its reader and gives its connection back. SQLite refuses to drop a
/// table while a reader on it is open (on the same connection, or on another one over the same file), so a successful
/// DROP proves the reader is gone.
/// </summary>
public sealed class StreamReleaseTests
{
    [Theory]
    [InlineData(RunnerKind.OpenPerCall)]
    [InlineData(RunnerKind.ReuseConnection)]
    [InlineData(RunnerKind.Session)]
    public void Breaking_out_of_a_stream_disposes_the_reader_and_frees_the_connection(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        foreach (Person p in db.Runner.Stream<Person>("select id, name, age from people order by id"))
        {
            Assert.Equal(1, p.Id);
            break;
        }

        db.Runner.Execute("drop table people");
        Assert.Equal(0, db.Runner.Scalar<int>("select count(*) from sqlite_master where name = 'people'"));
    }

    [Theory]
    [InlineData(RunnerKind.OpenPerCall)]
    [InlineData(RunnerKind.ReuseConnection)]
    [InlineData(RunnerKind.Session)]
    public async Task Breaking_out_of_an_async_stream_disposes_the_reader_and_frees_the_connection(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        await foreach (Person p in db.Runner.StreamAsync<Person>("select id, name, age from people order by id"))
        {
            Assert.Equal(1, p.Id);
            break;
        }

        await db.Runner.ExecuteAsync("drop table people");
        Assert.Equal(0, await db.Runner.ScalarAsync<int>("select count(*) from sqlite_master where name = 'people'"));
    }

    [Theory]
    [InlineData(RunnerKind.OpenPerCall)]
    [InlineData(RunnerKind.ReuseConnection)]
    [InlineData(RunnerKind.Session)]
    public async Task Cancelling_an_async_stream_between_rows_stops_it_at_the_next_row_and_frees_the_connection(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        using var cts = new CancellationTokenSource();
        var seen = new List<long>();
        OperationCanceledException error = await Assert.ThrowsAnyAsync<OperationCanceledException>(async () =>
        {
            await foreach (Person p in db.Runner.StreamAsync<Person>("select id, name, age from people order by id", cancellationToken: cts.Token))
            {
                seen.Add(p.Id);
                if (seen.Count == 2)
                    await cts.CancelAsync();
            }
        });

        Assert.Equal(cts.Token, error.CancellationToken);
        Assert.Equal([1L, 2L], seen);
        await db.Runner.ExecuteAsync("drop table people");
        Assert.Equal(0, await db.Runner.ScalarAsync<int>("select count(*) from sqlite_master where name = 'people'"));
    }

    public sealed class StrictAge
    {
        public long Id { get; set; }
        public int Age { get; set; }
    }

    [Theory]
    [InlineData(RunnerKind.OpenPerCall)]
    [InlineData(RunnerKind.ReuseConnection)]
    [InlineData(RunnerKind.Session)]
    public async Task A_mapping_failure_mid_stream_still_releases_everything(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        var seen = new List<long>();
        Assert.Throws<MappingException>(() =>
        {
            foreach (StrictAge row in db.Runner.Stream<StrictAge>("select id, age from people order by id"))
                seen.Add(row.Id); // row 5 has a NULL age
        });
        Assert.Equal([1L, 2, 3, 4], seen);

        await Assert.ThrowsAsync<MappingException>(async () =>
        {
            await foreach (StrictAge _ in db.Runner.StreamAsync<StrictAge>("select id, age from people order by id"))
            {
            }
        });

        db.Runner.Execute("drop table people");
    }

    [Theory]
    [InlineData(RunnerKind.OpenPerCall)]
    [InlineData(RunnerKind.ReuseConnection)]
    [InlineData(RunnerKind.Session)]
    public async Task A_server_error_mid_stream_reaches_the_caller_and_still_releases_everything(RunnerKind kind)
    {
        // abs() of the smallest 64-bit integer is a run-time error in SQLite: here it strikes on the third row.
        const string Sql = "select case when id = 3 then abs(-9223372036854775807 - 1) else id end from people order by id";
        using var db = new SeededDatabase(kind);
        var seen = new List<long>();
        var error = Assert.Throws<Microsoft.Data.Sqlite.SqliteException>(() =>
        {
            foreach (long id in db.Runner.Stream<long>(Sql))
                seen.Add(id);
        });
        Assert.Contains("overflow", error.Message, StringComparison.OrdinalIgnoreCase);
        Assert.Equal([1L, 2], seen);

        seen.Clear();
        await Assert.ThrowsAsync<Microsoft.Data.Sqlite.SqliteException>(async () =>
        {
            await foreach (long id in db.Runner.StreamAsync<long>(Sql))
                seen.Add(id);
        });
        Assert.Equal([1L, 2], seen);

        db.Runner.Execute("drop table people");
    }

    [Fact]
    public void A_stream_does_not_touch_the_database_until_enumerated()
    {
        using var db = new SeededDatabase(RunnerKind.Session);
        IEnumerable<Person> never = db.Runner.Stream<Person>("select * from no_such_table");
        Assert.Equal(1, db.Runner.Scalar<int>("select 1")); // the session is not busy: nothing ran
        Assert.ThrowsAny<Exception>(() => never.ToList());
    }
}
