namespace Orseis.Tests.Execution;

/// <summary>
/// A <see cref="DeadlineSweep"/> makes its table of deadlines at the first deadline, not when it is created (a database
/// whose calls are never watched never pays for it): the first deadlines added from many threads at once must all be
/// kept, whichever thread made the table, and a watch with no deadline must leave the sweep untouched.
/// </summary>
public sealed class DeadlineSweepStartTests
{
    [Fact]
    public async Task Every_first_deadline_added_at_once_from_many_threads_fires()
    {
        const int Watches = 64;
        for (int round = 0; round < 20; round++)
        {
            var clock = new WatchClock();
            using var go = new ManualResetEventSlim();
            Task<CallWatch>[] starting = [.. Enumerable.Range(0, Watches).Select(_ => Task.Run(() =>
            {
                go.Wait();
                return CallWatch.Start(clock.Sweep, TimeSpan.FromSeconds(1), CancellationToken.None)!;
            }))];
            go.Set();
            CallWatch[] watches = await Task.WhenAll(starting).WaitAsync(TimeSpan.FromSeconds(30));

            clock.Advance(TimeSpan.FromSeconds(1) + DeadlineSweep.Period);

            Assert.All(watches, watch => Assert.True(watch.DeadlineHit));
            Assert.Equal(1, clock.Timers); // one sweep timer, whichever thread started it
            foreach (CallWatch watch in watches)
                watch.Dispose();
        }
    }

    [Fact]
    public void A_watch_without_a_deadline_starts_no_sweep_and_is_disposed_without_one()
    {
        var clock = new WatchClock();
        using var caller = new CancellationTokenSource();
        CallWatch watch = CallWatch.Start(clock.Sweep, caller.Token)!;
        watch.Dispose();
        clock.Advance(DeadlineSweep.Period * 4);
        Assert.False(watch.DeadlineHit);
        Assert.Equal(0, clock.Timers);
    }
}
