using System.Diagnostics;
using System.Net.Sockets;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Execution;

/// <summary>
/// The retry budget counts from a call's (or a unit of work's) first failure, not from its start: a first attempt that
/// ran long before it failed (a slow connect, a read on a loaded server killed late) still gets the whole budget to be
/// run again, and retries that keep failing still stop once the budget is spent.
/// </summary>
public sealed class RetryBudgetTests : IAsyncDisposable
{
    private readonly SqliteFile _file = new();
    private readonly TwinRecordingDataSource _source;
    private int _refusals;

    public RetryBudgetTests()
    {
        _source = new TwinRecordingDataSource(_file.ConnectionString);
    }

    public ValueTask DisposeAsync()
    {
        _file.Dispose();
        return default;
    }

    /// <summary>The next <paramref name="times"/> opens are refused, each after <paramref name="slow"/>.</summary>
    private void RefuseSlowly(int times, TimeSpan slow)
    {
        _refusals = times;
        _source.OpenFailure = () =>
        {
            if (Interlocked.Decrement(ref _refusals) == 0)
                _source.OpenFailure = null;
            Thread.Sleep(slow);
            return new InvalidOperationException("Failed to connect", new SocketException((int)SocketError.TimedOut));
        };
    }

    private Database Open(string pool, TimeSpan budget)
    {
        var options = new OrseisOptions { PoolName = pool };
        options.Retry.Enabled = true;
        options.Retry.Budget = budget;
        options.Retry.BaseDelay = TimeSpan.FromMilliseconds(1);
        options.Retry.MaxDelay = TimeSpan.FromMilliseconds(5);
        return new Database(_source, options);
    }

    private int Opens(bool async) => _source.Count(async ? "OpenAsync" : "Open");

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_first_attempt_longer_than_the_budget_is_still_retried(bool async)
    {
        await using Database db = Open("budget-slow-first-" + async, TimeSpan.FromMilliseconds(300));
        RefuseSlowly(1, TimeSpan.FromMilliseconds(500));

        long answer = async ? await db.ScalarAsync<long>("select 7") : db.Scalar<long>("select 7");

        Assert.Equal(7, answer);
        Assert.Equal(2, Opens(async));
    }

    [Fact]
    public async Task Retries_after_a_long_first_attempt_still_stop_when_the_budget_is_spent()
    {
        await using Database db = Open("budget-slow-then-refused", TimeSpan.FromMilliseconds(300));
        RefuseSlowly(10_000, TimeSpan.FromMilliseconds(100));
        var watch = Stopwatch.StartNew();

        await Assert.ThrowsAsync<InvalidOperationException>(() => db.ScalarAsync<long>("select 1"));

        // 100 ms for the first attempt, then retries for at most 300 ms from its failure (each 100 ms): not 10,000. The count
        // of attempts is what proves the budget stopped them; the elapsed time's upper bound only guards against a hang (10,000
        // attempts would take 1,000 s): a clean-clone CI run on a loaded machine took 3.8 s for at most six 100 ms attempts.
        Assert.InRange(Opens(async: true), 2, 6);
        Assert.InRange(watch.Elapsed, TimeSpan.FromMilliseconds(350), TimeSpan.FromSeconds(60));
    }

    [Fact]
    public async Task A_unit_of_work_whose_first_open_ran_past_the_budget_is_run_again()
    {
        await using Database db = Open("budget-slow-unit", TimeSpan.FromMilliseconds(300));
        RefuseSlowly(1, TimeSpan.FromMilliseconds(500));
        int runs = 0;

        long answer = await db.InTransactionAsync(async (session, token) =>
        {
            runs++;
            return await session.ScalarAsync<long>("select 9", cancellationToken: token);
        });

        Assert.Equal(9, answer);
        Assert.Equal(1, runs);
        Assert.Equal(2, Opens(async: true));
    }
}
