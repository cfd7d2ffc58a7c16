using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>Several result sets of one command, read in order, with the connection held like a stream's.</summary>
public sealed class QueryMultipleTests
{
    public static TheoryData<RunnerKind> Kinds => [RunnerKind.OpenPerCall, RunnerKind.ReuseConnection, RunnerKind.Session];

    private const string ThreeResults =
        "select id, name from people where id = @id; select id, name from people where id > @id order by id; select count(*) from people";

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Result_sets_are_read_in_order_and_the_connection_is_given_back(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        using (GridReader grids = db.Runner.QueryMultiple(ThreeResults, new { id = 3 }))
        {
            Assert.Equal("person 3", grids.ReadSingle<Person>().Name);
            Assert.Equal([4L, 5L], grids.Read<Person>().Select(p => p.Id));
            Assert.False(grids.IsConsumed);
            Assert.Equal(5, grids.ReadSingle<int>());
            Assert.True(grids.IsConsumed);
            var done = Assert.Throws<InvalidOperationException>(() => grids.Read<int>());
            Assert.Contains("has been read", done.Message, StringComparison.Ordinal);
        }

        Assert.Equal(kind == RunnerKind.OpenPerCall ? 0 : 1, db.Database.GetPoolReport().InUse);
        Assert.Equal(5, db.Runner.Scalar<int>("select count(*) from people"));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task The_async_forms_read_the_same(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        int id = 4;
        await using GridReader grids = await db.Runner.QueryMultipleAsync($"select name from people where id = {id}; select name from people where id > 100; select name from people order by id");
        Assert.Equal("person 4", await grids.ReadFirstAsync<string>());
        Assert.Null(await grids.ReadSingleOrDefaultAsync<string>());
        Assert.Equal("person 1", await grids.ReadFirstOrDefaultAsync<string>());
        Assert.True(grids.IsConsumed);
    }

    [Fact]
    public void A_session_is_busy_until_the_reader_is_disposed_and_an_early_dispose_releases_it()
    {
        using var db = new SeededDatabase(RunnerKind.Session);
        GridReader grids = db.Runner.QueryMultiple(ThreeResults, new { id = 1 });
        Assert.Throws<SessionBusyException>(() => db.Runner.Scalar<int>("select 1"));
        Assert.Equal(1, grids.ReadSingle<Person>().Id);
        grids.Dispose();
        grids.Dispose();
        Assert.Equal(1, db.Runner.Scalar<int>("select 1"));
        Assert.Throws<ObjectDisposedException>(() => grids.Read<Person>());
    }

    [Fact]
    public void Wrong_row_counts_and_mapping_errors_are_clear_and_the_reader_still_gives_back_its_connection()
    {
        using var db = new SeededDatabase(RunnerKind.Session);
        using (GridReader grids = db.Runner.QueryMultiple("select id from people; select name from people where id > 100; select name from people"))
        {
            var many = Assert.Throws<InvalidOperationException>(() => grids.ReadSingle<long>());
            Assert.Contains("more than one", many.Message, StringComparison.Ordinal);
            var none = Assert.Throws<InvalidOperationException>(() => grids.ReadFirst<string>());
            Assert.Contains("none", none.Message, StringComparison.Ordinal);
            Assert.Throws<MappingException>(() => grids.Read<Guid>());
        }

        Assert.Equal(5, db.Runner.Scalar<int>("select count(*) from people"));
    }
}
