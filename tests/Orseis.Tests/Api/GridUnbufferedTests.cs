using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>
/// A grid's unbuffered reads (Dapper's <c>Read&lt;T&gt;(buffered: false)</c>, <c>ReadUnbufferedAsync</c>) and its call ending
/// once the last result set is read, before it is disposed, as in Dapper's QueryMultipleTests.
/// </summary>
public sealed class GridUnbufferedTests
{
    public static TheoryData<RunnerKind> Kinds => SeededDatabase.AllKinds;

    private const string Four = "select 1; select 2 where 1 = 0; select id from people where id > @id order by id; select 4";

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Unbuffered_result_sets_read_in_order_empty_ones_included_and_the_connection_is_back_after_the_last(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        using GridReader grid = db.Runner.QueryMultiple(Four, new { id = 2 });
        Assert.Equal([1L], grid.Read<long>(buffered: false).ToArray());
        Assert.Empty(grid.Read<long>(false));
        Assert.Equal([3L, 4L, 5L], grid.Read<long>(false));
        Assert.Equal(1, db.Database.GetPoolReport().InUse);
        Assert.Equal([4L], grid.Read<long>(buffered: true));
        Assert.True(grid.IsConsumed);

        // Given back before the grid is disposed: to the pool (open-per-call), to the session or database for its next call.
        Assert.Equal(kind == RunnerKind.OpenPerCall ? 0 : 1, db.Database.GetPoolReport().InUse);
        Assert.Equal(5, db.Runner.Scalar<int>("select count(*) from people"));
        var after = Assert.Throws<InvalidOperationException>(() => grid.Read<long>(false));
        Assert.Contains("has been read", after.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Reading_the_next_result_set_before_the_unbuffered_one_was_read_is_refused()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        using GridReader grid = db.Runner.QueryMultiple(Four, new { id = 0 });
        IEnumerable<long> first = grid.Read<long>(false);
        var wrongOrder = Assert.Throws<InvalidOperationException>(() => grid.Read<long>(false));
        Assert.Contains("being read unbuffered", wrongOrder.Message, StringComparison.Ordinal);
        Assert.Throws<InvalidOperationException>(() => grid.ReadSingle<long>());
        Assert.Equal([1L], first);
        Assert.Contains("already been read", Assert.Throws<InvalidOperationException>(() => first.ToList()).Message,
            StringComparison.Ordinal);
        Assert.Empty(grid.Read<long>());
    }

    [Fact]
    public void Stopping_early_skips_the_rest_of_the_result_set()
    {
        using var db = new SeededDatabase(RunnerKind.Session);
        using GridReader grid = db.Runner.QueryMultiple("select id from people order by id; select 42");
        Assert.Equal([1L, 2L], grid.Read<long>(false).Take(2));
        Assert.Equal(42, grid.ReadSingle<int>());
        Assert.Equal(1, db.Runner.Scalar<int>("select 1")); // the session is free before the grid is disposed
    }

    [Fact]
    public void Disposing_the_grid_while_a_result_set_is_read_unbuffered_stops_it_and_gives_the_connection_back()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        GridReader grid = db.Runner.QueryMultiple("select id from people order by id; select 42");
        using IEnumerator<long> rows = grid.Read<long>(false).GetEnumerator();
        Assert.True(rows.MoveNext());
        grid.Dispose();
        Assert.Equal(0, db.Database.GetPoolReport().InUse);
        Assert.Throws<ObjectDisposedException>(() => rows.MoveNext());
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task The_async_unbuffered_read_honours_its_token_and_ends_the_call_after_the_last_result_set(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        await using GridReader grid = await db.Runner.QueryMultipleAsync(
            "select id from people order by id; select name from people order by id");
        var ids = new List<long>();
        await foreach (long id in grid.ReadUnbufferedAsync<long>())
            ids.Add(id);
        Assert.Equal([1L, 2L, 3L, 4L, 5L], ids);

        using var cts = new CancellationTokenSource();
        var names = new List<string>();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () =>
        {
            await foreach (string name in grid.ReadUnbufferedAsync<string>().WithCancellation(cts.Token))
            {
                names.Add(name);
                cts.Cancel();
            }
        });
        Assert.Equal(["person 1"], names);
        Assert.True(grid.IsConsumed); // the rest was skipped: it was the last result set, so the call ended
        Assert.Equal(kind == RunnerKind.OpenPerCall ? 0 : 1, db.Database.GetPoolReport().InUse);
    }

    [Fact]
    public void A_mapping_error_in_an_unbuffered_read_moves_on_to_the_next_result_set()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        using GridReader grid = db.Runner.QueryMultiple("select name from people order by id; select 7");
        Assert.Throws<MappingException>(() => grid.Read<int>(false).ToList());
        Assert.Equal(7, grid.ReadSingle<int>());
        Assert.Equal(0, db.Database.GetPoolReport().InUse);
    }
}
