using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Modes;

/// <summary>A ReuseConnection database serialises concurrent flows on its one connection and counts the waits.</summary>
public sealed class ReuseConnectionTests
{
    [Fact]
    public void All_calls_share_one_connection()
    {
        using var file = new SqliteFile();
        using Database db = file.Open(ExecutionMode.ReuseConnection);
        db.Execute("create temp table scratch (v integer)");
        db.Execute("insert into scratch values (1)");
        Assert.Equal(1, db.Scalar<int>("select count(*) from scratch"));
        Assert.Equal(ExecutionMode.ReuseConnection, db.Mode);
    }

    [Fact]
    public async Task A_concurrent_call_waits_for_the_shared_connection_and_the_wait_is_counted()
    {
        using var db = new SeededDatabase(RunnerKind.ReuseConnection);
        IAsyncEnumerator<Person> holder = db.Runner.StreamAsync<Person>("select id, name from people").GetAsyncEnumerator();
        Assert.True(await holder.MoveNextAsync());

        Task<int> waiting = Task.Run(() => db.Runner.ScalarAsync<int>("select count(*) from people"));
        SpinWait.SpinUntil(() => db.Database.ReuseWaits == 1, TimeSpan.FromSeconds(10));
        Assert.Equal(1, db.Database.ReuseWaits);
        Assert.False(waiting.IsCompleted);

        await holder.DisposeAsync();
        Assert.Equal(5, await waiting);
    }

    [Fact]
    public void A_call_inside_a_sync_stream_on_the_same_thread_fails_at_once_instead_of_deadlocking()
    {
        using var db = new SeededDatabase(RunnerKind.ReuseConnection);
        var error = Assert.Throws<InvalidOperationException>(() =>
        {
            foreach (Person p in db.Runner.Stream<Person>("select id, name from people"))
                db.Runner.Scalar<int>("select @id", new { p.Id });
        });
        Assert.Contains("wait forever", error.Message, StringComparison.Ordinal);
        Assert.Equal(5, db.Runner.Scalar<int>("select count(*) from people"));
    }

    [Fact]
    public async Task A_wait_longer_than_the_reuse_wait_timeout_fails_naming_the_setting()
    {
        using var db = new SeededDatabase(RunnerKind.ReuseConnection, o => o.ReuseWaitTimeout = TimeSpan.FromMilliseconds(200));
        await using IAsyncEnumerator<Person> holder = db.Runner.StreamAsync<Person>("select id, name from people").GetAsyncEnumerator();
        Assert.True(await holder.MoveNextAsync());
        var error = await Assert.ThrowsAsync<TimeoutException>(() => Task.Run(() => db.Runner.ScalarAsync<int>("select 1")));
        Assert.Contains("ReuseWaitTimeout", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Many_concurrent_flows_get_correct_results_one_at_a_time()
    {
        using var db = new SeededDatabase(RunnerKind.ReuseConnection);
        Task<int>[] calls = [.. Enumerable.Range(1, 40).Select(i => Task.Run(() => db.Runner.ScalarAsync<int>("select @i * 2", new { i })))];
        int[] results = await Task.WhenAll(calls);
        Assert.Equal(Enumerable.Range(1, 40).Select(i => i * 2), results);
    }

    [Fact]
    public void Open_per_call_never_waits()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        foreach (Person p in db.Runner.Stream<Person>("select id, name from people"))
            Assert.Equal(p.Name, db.Runner.Scalar<string>("select name from people where id = @id", new { p.Id }));
        Assert.Equal(0, db.Database.ReuseWaits);
    }
}
