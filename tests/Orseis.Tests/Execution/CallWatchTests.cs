using System.Diagnostics;
using Orseis.Execution;

namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="CallWatch"/> with a <see cref="TaskCompletionSource"/> standing in for a provider operation: a well-behaved
/// one that stops when its token is cancelled, one that finishes late but within the grace, and one that ignores
/// cancellation altogether (a server that stopped answering). The caller gets control back on time in every case.
/// </summary>
public sealed class CallWatchTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(10);

    /// <summary>
    /// The earliest an abandon may be seen by a Stopwatch: timers run on a millisecond tick count, and one fired at
    /// 999.9 ms of a 1 s grace by the Stopwatch.
    /// </summary>
    internal static readonly TimeSpan EarliestAbandon = CallWatch.Grace - TimeSpan.FromMilliseconds(20);

    /// <summary>A provider operation that completes only when told to, whatever its token says.</summary>
    private static TaskCompletionSource<int> Operation() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Waits (bounded) until <paramref name="token"/> is cancelled; the watch cancels on a thread-pool thread.</summary>
    private static bool CancelledWithin(CancellationToken token, TimeSpan within) => token.WaitHandle.WaitOne(within);

    [Fact]
    public void Nothing_is_watched_without_a_cancellable_token_or_a_deadline()
    {
        Assert.Null(CallWatch.Start(CancellationToken.None));
        Assert.Null(CallWatch.Start(deadline: null, CancellationToken.None));
        using CallWatch? byDeadline = CallWatch.Start(TimeSpan.FromMinutes(5), CancellationToken.None);
        Assert.NotNull(byDeadline);
        using var cts = new CancellationTokenSource();
        using CallWatch? byToken = CallWatch.Start(cts.Token);
        Assert.NotNull(byToken);
    }

    [Fact]
    public void The_provider_gets_a_token_of_its_own_cancelled_after_the_caller_s()
    {
        using var cts = new CancellationTokenSource();
        using CallWatch watch = CallWatch.Start(cts.Token)!;
        CancellationToken provider = watch.Token;
        Assert.NotEqual(cts.Token, provider);
        Assert.True(provider.CanBeCanceled);
        Assert.False(provider.IsCancellationRequested);
        Assert.False(watch.CallerCancelled);

        cts.Cancel();
        Assert.True(CancelledWithin(provider, Patience));
        Assert.True(watch.CallerCancelled);
        Assert.False(watch.DeadlineHit);
    }

    [Fact]
    public void An_already_cancelled_caller_gets_a_provider_token_cancelled_at_once()
    {
        using var cts = new CancellationTokenSource();
        cts.Cancel();
        using CallWatch watch = CallWatch.Start(cts.Token)!;
        Assert.True(watch.Token.IsCancellationRequested); // synchronously: nothing of the provider's is registered yet
        Assert.True(watch.CallerCancelled);
    }

    [Fact]
    public async Task A_completed_operation_gives_its_result_or_its_failure()
    {
        using var cts = new CancellationTokenSource();
        using CallWatch watch = CallWatch.Start(cts.Token)!;
        Assert.Equal(3, await watch.WaitAsync(new ValueTask<int>(3)));
        var failure = new InvalidOperationException("provider failure");
        Assert.Same(failure, await Assert.ThrowsAsync<InvalidOperationException>(async () => await watch.WaitAsync(ValueTask.FromException<int>(failure))));
    }

    [Fact]
    public async Task An_operation_that_ends_in_time_gives_its_result_or_its_failure()
    {
        using var cts = new CancellationTokenSource();
        using CallWatch watch = CallWatch.Start(cts.Token)!;
        TaskCompletionSource<int> operation = Operation();
        ValueTask<int> waiting = watch.WaitAsync(new ValueTask<int>(operation.Task));
        Assert.False(waiting.IsCompleted);
        operation.SetResult(11);
        Assert.Equal(11, await waiting);

        TaskCompletionSource<int> failing = Operation();
        ValueTask<int> failingWait = watch.WaitAsync(new ValueTask<int>(failing.Task));
        failing.SetException(new TimeoutException("server said so"));
        Assert.Equal("server said so", (await Assert.ThrowsAsync<TimeoutException>(async () => await failingWait)).Message);
    }

    [Fact]
    public async Task A_provider_that_stops_on_its_token_reports_its_own_cancellation_and_is_not_abandoned()
    {
        using var cts = new CancellationTokenSource();
        using CallWatch watch = CallWatch.Start(cts.Token)!;
        TaskCompletionSource<int> operation = Operation();
        watch.Token.Register(() => operation.TrySetCanceled(watch.Token));
        ValueTask<int> waiting = watch.WaitAsync(new ValueTask<int>(operation.Task));

        var clock = Stopwatch.StartNew();
        cts.Cancel();
        await Assert.ThrowsAsync<TaskCanceledException>(async () => await waiting);
        Assert.True(clock.Elapsed < CallWatch.Grace, $"took {clock.Elapsed}");
    }

    [Fact]
    public async Task A_provider_that_finishes_within_the_grace_after_a_cancel_still_gives_its_result()
    {
        using var cts = new CancellationTokenSource();
        using CallWatch watch = CallWatch.Start(cts.Token)!;
        TaskCompletionSource<int> operation = Operation();
        ValueTask<int> waiting = watch.WaitAsync(new ValueTask<int>(operation.Task));

        cts.Cancel();
        Assert.True(CancelledWithin(watch.Token, Patience));
        await Task.Delay(100);
        Assert.False(waiting.IsCompleted); // still inside the grace
        operation.SetResult(5);
        Assert.Equal(5, await waiting);
    }

    [Fact]
    public async Task A_provider_that_ignores_the_cancel_is_abandoned_after_the_grace_and_its_token_outlives_the_watch()
    {
        using var cts = new CancellationTokenSource();
        CallWatch watch = CallWatch.Start(cts.Token)!;
        CancellationToken provider = watch.Token;
        TaskCompletionSource<int> operation = Operation();
        ValueTask<int> waiting = watch.WaitAsync(new ValueTask<int>(operation.Task));

        var clock = Stopwatch.StartNew();
        cts.Cancel();
        var abandoned = await Assert.ThrowsAsync<CallAbandonedException>(async () => await waiting);
        TimeSpan elapsed = clock.Elapsed;
        Assert.InRange(elapsed, CallWatch.Grace - TimeSpan.FromMilliseconds(50), Patience);
        Assert.Same(operation.Task, abandoned.Pending);
        Assert.False(abandoned.Pending.IsCompleted);
        Assert.IsType<OperationCanceledException>(abandoned.Reported);
        Assert.Equal("The provider did not stop within the grace period; the operation was abandoned.", abandoned.Message);

        // The provider may still use its token after the caller moved on: it is disposed only once the operation ends.
        watch.Dispose();
        _ = provider.WaitHandle; // throws ObjectDisposedException once the source is disposed
        operation.SetResult(1);
        await abandoned.Pending;
        Assert.True(SpinWait.SpinUntil(() => IsDisposed(provider), Patience));
    }

    [Fact]
    public void A_watch_that_abandoned_nothing_disposes_the_provider_token_at_once()
    {
        using var cts = new CancellationTokenSource();
        CallWatch watch = CallWatch.Start(cts.Token)!;
        CancellationToken provider = watch.Token;
        watch.Dispose();
        Assert.True(IsDisposed(provider));
    }

    [Fact]
    public void After_dispose_a_caller_cancel_reaches_nothing()
    {
        using var cts = new CancellationTokenSource();
        CallWatch watch = CallWatch.Start(cts.Token)!;
        watch.Dispose();
        cts.Cancel(); // the registration is gone: no cancel is queued on the disposed provider source
        Assert.True(watch.CallerCancelled);
        Assert.False(watch.DeadlineHit);
    }

    [Fact]
    public async Task A_deadline_stops_the_provider_and_says_so()
    {
        using CallWatch watch = CallWatch.Start(TimeSpan.FromMilliseconds(50), CancellationToken.None)!;
        TaskCompletionSource<int> operation = Operation();
        watch.Token.Register(() => operation.TrySetCanceled(watch.Token));
        Assert.False(watch.DeadlineHit);

        var clock = Stopwatch.StartNew();
        await Assert.ThrowsAsync<TaskCanceledException>(async () => await watch.WaitAsync(new ValueTask<int>(operation.Task)));
        Assert.True(watch.DeadlineHit);
        Assert.False(watch.CallerCancelled);
        Assert.True(clock.Elapsed < Patience);
    }

    [Fact]
    public async Task A_deadline_abandons_a_provider_that_ignores_it()
    {
        CallWatch watch = CallWatch.Start(TimeSpan.FromMilliseconds(50), CancellationToken.None)!;
        TaskCompletionSource<int> operation = Operation();
        var clock = Stopwatch.StartNew();
        var abandoned = await Assert.ThrowsAsync<CallAbandonedException>(async () => await watch.WaitAsync(new ValueTask<int>(operation.Task)));
        Assert.InRange(clock.Elapsed, EarliestAbandon, Patience);
        Assert.True(watch.DeadlineHit);
        watch.Dispose();
        operation.SetResult(0);
        await abandoned.Pending;
    }

    [Fact]
    public async Task A_disposed_watch_no_longer_has_a_deadline()
    {
        CallWatch watch = CallWatch.Start(TimeSpan.FromMilliseconds(50), CancellationToken.None)!;
        watch.Dispose();
        await Task.Delay(DeadlineSweep.Period * 4);
        Assert.False(watch.DeadlineHit);
    }

    [Fact]
    public async Task A_distant_deadline_does_not_fire_early()
    {
        using CallWatch watch = CallWatch.Start(TimeSpan.FromMinutes(5), CancellationToken.None)!;
        await Task.Delay(DeadlineSweep.Period * 4);
        Assert.False(watch.DeadlineHit);
        Assert.False(watch.Token.IsCancellationRequested);
    }

    [Fact]
    public async Task Plain_tasks_are_watched_the_same_way()
    {
        using var cts = new CancellationTokenSource();
        using CallWatch watch = CallWatch.Start(cts.Token)!;
        await watch.WaitAsync(Task.CompletedTask);
        var failure = new InvalidOperationException("open failed");
        Assert.Same(failure, await Assert.ThrowsAsync<InvalidOperationException>(async () => await watch.WaitAsync(Task.FromException(failure))));

        var pending = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        ValueTask waiting = watch.WaitAsync(pending.Task);
        cts.Cancel();
        var abandoned = await Assert.ThrowsAsync<CallAbandonedException>(async () => await waiting);
        Assert.False(abandoned.Pending.IsCompleted);
        pending.SetResult();
        await abandoned.Pending;
    }

    private static bool IsDisposed(CancellationToken token)
    {
        try
        {
            _ = token.WaitHandle;
            return false;
        }
        catch (ObjectDisposedException)
        {
            return true;
        }
    }
}
