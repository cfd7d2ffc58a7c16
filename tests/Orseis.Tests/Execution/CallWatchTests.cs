namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="CallWatch"/> with a <see cref="TaskCompletionSource"/> standing in for a provider operation: a well-behaved
/// one that stops when its token is cancelled, one that finishes late but within the grace, and one that ignores
/// cancellation altogether (a server that stopped answering). The caller gets control back on time in every case.
/// Time is a <see cref="WatchClock"/>: the grace and the deadlines are reached by advancing it, never by sleeping.
/// </summary>
public sealed class CallWatchTests
{
    /// <summary>How long, in real time, a test waits for what must happen at once (a thread-pool cancel, a result).</summary>
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(10);

    private static readonly TimeSpan Tick = TimeSpan.FromTicks(1);

    private readonly WatchClock _clock = new();

    private CallWatch? Start(CancellationToken caller) => CallWatch.Start(_clock.Sweep, caller);

    private CallWatch? Start(TimeSpan? deadline, CancellationToken caller) => CallWatch.Start(_clock.Sweep, deadline, caller);

    /// <summary>A provider operation that completes only when told to, whatever its token says.</summary>
    private static TaskCompletionSource<int> Operation() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Waits (bounded) until <paramref name="token"/> is cancelled; the watch cancels on a thread-pool thread.</summary>
    /// <summary>
    /// Whether <paramref name="token"/> is cancelled within <paramref name="within"/>, waited for without blocking a thread:
    /// CallWatch cancels its provider token from a thread-pool work item, which a test blocking a pool thread (among many
    /// tests doing the same in parallel) could delay past the patience.
    /// </summary>
    private static async Task<bool> CancelledWithin(CancellationToken token, TimeSpan within)
    {
        var cancelled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using CancellationTokenRegistration registration = token.Register(() => cancelled.TrySetResult());
        return await Task.WhenAny(cancelled.Task, Task.Delay(within)) == cancelled.Task;
    }

    /// <summary>The outcome of <paramref name="waiting"/>, which must come without the clock moving (bounded in real time).</summary>
    private static Task<T> Settled<T>(ValueTask<T> waiting) => waiting.AsTask().WaitAsync(Patience);

    /// <summary>
    /// Moves the clock to just before the end of the grace armed after a stop (<paramref name="timers"/>: the timers on
    /// the clock once it is armed), checks <paramref name="waiting"/> is still waiting, then moves it to the end.
    /// </summary>
    private async Task AdvanceThroughGraceAsync(Task waiting, int timers = 1)
    {
        Assert.True(await _clock.WaitForTimersAsync(timers), "the grace was never armed");
        _clock.Advance(CallWatch.Grace - Tick);
        Assert.False(waiting.IsCompleted); // still inside the grace
        _clock.Advance(Tick);
    }

    [Fact]
    public void Nothing_is_watched_without_a_cancellable_token_or_a_deadline()
    {
        Assert.Null(Start(CancellationToken.None));
        Assert.Null(Start(deadline: null, CancellationToken.None));
        using CallWatch? byDeadline = Start(TimeSpan.FromMinutes(5), CancellationToken.None);
        Assert.NotNull(byDeadline);
        using var cts = new CancellationTokenSource();
        using CallWatch? byToken = Start(cts.Token);
        Assert.NotNull(byToken);
    }

    [Fact]
    public async Task The_provider_gets_a_token_of_its_own_cancelled_after_the_caller_s()
    {
        using var cts = new CancellationTokenSource();
        using CallWatch watch = Start(cts.Token)!;
        CancellationToken provider = watch.Token;
        Assert.NotEqual(cts.Token, provider);
        Assert.True(provider.CanBeCanceled);
        Assert.False(provider.IsCancellationRequested);
        Assert.False(watch.CallerCancelled);

        cts.Cancel();
        Assert.True(await CancelledWithin(provider, Patience));
        Assert.True(watch.CallerCancelled);
        Assert.False(watch.DeadlineHit);
    }

    [Fact]
    public void An_already_cancelled_caller_gets_a_provider_token_cancelled_at_once()
    {
        using var cts = new CancellationTokenSource();
        cts.Cancel();
        using CallWatch watch = Start(cts.Token)!;
        Assert.True(watch.Token.IsCancellationRequested); // synchronously: nothing of the provider's is registered yet
        Assert.True(watch.CallerCancelled);
    }

    [Fact]
    public async Task A_completed_operation_gives_its_result_or_its_failure()
    {
        using var cts = new CancellationTokenSource();
        using CallWatch watch = Start(cts.Token)!;
        Assert.Equal(3, await watch.WaitAsync(new ValueTask<int>(3)));
        var failure = new InvalidOperationException("provider failure");
        Assert.Same(failure, await Assert.ThrowsAsync<InvalidOperationException>(async () => await watch.WaitAsync(ValueTask.FromException<int>(failure))));
    }

    [Fact]
    public async Task An_operation_that_ends_in_time_gives_its_result_or_its_failure()
    {
        using var cts = new CancellationTokenSource();
        using CallWatch watch = Start(cts.Token)!;
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
        using CallWatch watch = Start(cts.Token)!;
        TaskCompletionSource<int> operation = Operation();
        watch.Token.Register(() => operation.TrySetCanceled(watch.Token));
        ValueTask<int> waiting = watch.WaitAsync(new ValueTask<int>(operation.Task));

        cts.Cancel();
        await Assert.ThrowsAsync<TaskCanceledException>(() => Settled(waiting)); // the clock never moved
    }

    [Fact]
    public async Task A_provider_that_finishes_within_the_grace_after_a_cancel_still_gives_its_result()
    {
        using var cts = new CancellationTokenSource();
        using CallWatch watch = Start(cts.Token)!;
        TaskCompletionSource<int> operation = Operation();
        ValueTask<int> waiting = watch.WaitAsync(new ValueTask<int>(operation.Task));

        cts.Cancel();
        Assert.True(await CancelledWithin(watch.Token, Patience));
        Assert.True(await _clock.WaitForTimersAsync(1), "the grace was never armed");
        _clock.Advance(CallWatch.Grace - Tick);
        Assert.False(waiting.IsCompleted); // still inside the grace
        operation.SetResult(5);
        Assert.Equal(5, await Settled(waiting));
    }

    [Fact]
    public async Task A_provider_that_ignores_the_cancel_is_abandoned_after_the_grace_and_its_token_outlives_the_watch()
    {
        using var cts = new CancellationTokenSource();
        CallWatch watch = Start(cts.Token)!;
        CancellationToken provider = watch.Token;
        TaskCompletionSource<int> operation = Operation();
        ValueTask<int> waiting = watch.WaitAsync(new ValueTask<int>(operation.Task));

        cts.Cancel();
        Task<int> result = waiting.AsTask();
        await AdvanceThroughGraceAsync(result);
        var abandoned = await Assert.ThrowsAsync<CallAbandonedException>(() => result.WaitAsync(Patience));
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
        CallWatch watch = Start(cts.Token)!;
        CancellationToken provider = watch.Token;
        watch.Dispose();
        Assert.True(IsDisposed(provider));
    }

    [Fact]
    public void After_dispose_a_caller_cancel_reaches_nothing()
    {
        using var cts = new CancellationTokenSource();
        CallWatch watch = Start(cts.Token)!;
        watch.Dispose();
        cts.Cancel(); // the registration is gone: no cancel is queued on the disposed provider source
        Assert.True(watch.CallerCancelled);
        Assert.False(watch.DeadlineHit);
    }

    [Fact]
    public async Task A_deadline_stops_the_provider_and_says_so()
    {
        using CallWatch watch = Start(TimeSpan.FromMilliseconds(50), CancellationToken.None)!;
        TaskCompletionSource<int> operation = Operation();
        watch.Token.Register(() => operation.TrySetCanceled(watch.Token));
        ValueTask<int> waiting = watch.WaitAsync(new ValueTask<int>(operation.Task));
        Assert.False(watch.DeadlineHit);

        _clock.Advance(DeadlineSweep.Period); // the first sweep after the deadline
        await Assert.ThrowsAsync<TaskCanceledException>(() => Settled(waiting));
        Assert.True(watch.DeadlineHit);
        Assert.False(watch.CallerCancelled);
    }

    [Fact]
    public async Task A_deadline_fires_at_the_first_sweep_after_it_and_not_before()
    {
        using CallWatch watch = Start(TimeSpan.FromMilliseconds(250), CancellationToken.None)!;
        Assert.Equal(1, _clock.Timers); // the sweep's one timer, created by the first deadline on this clock
        _clock.Advance(DeadlineSweep.Period * 2);
        Assert.False(watch.DeadlineHit);
        _clock.Advance(DeadlineSweep.Period - Tick);
        Assert.False(watch.DeadlineHit);
        _clock.Advance(Tick);
        Assert.True(watch.DeadlineHit); // the sweep runs on the advancing thread: at once
        Assert.True(await CancelledWithin(watch.Token, Patience));
    }

    [Fact]
    public void Every_watch_on_a_clock_shares_its_one_sweep_timer()
    {
        using CallWatch first = Start(TimeSpan.FromSeconds(1), CancellationToken.None)!;
        using CallWatch second = Start(TimeSpan.FromSeconds(2), CancellationToken.None)!;
        using CallWatch third = Start(TimeSpan.FromSeconds(2), CancellationToken.None)!;
        Assert.Equal(1, _clock.Timers);
        _clock.Advance(TimeSpan.FromSeconds(1));
        Assert.Equal((true, false, false), (first.DeadlineHit, second.DeadlineHit, third.DeadlineHit));
        _clock.Advance(TimeSpan.FromSeconds(1));
        Assert.Equal((true, true, true), (first.DeadlineHit, second.DeadlineHit, third.DeadlineHit));
        Assert.Equal(1, _clock.Timers);
    }

    [Fact]
    public async Task A_deadline_abandons_a_provider_that_ignores_it()
    {
        CallWatch watch = Start(TimeSpan.FromMilliseconds(50), CancellationToken.None)!;
        TaskCompletionSource<int> operation = Operation();
        Task<int> waiting = watch.WaitAsync(new ValueTask<int>(operation.Task)).AsTask();
        _clock.Advance(DeadlineSweep.Period);
        Assert.True(watch.DeadlineHit);
        await AdvanceThroughGraceAsync(waiting, timers: 2); // the sweep's timer, then the grace's
        var abandoned = await Assert.ThrowsAsync<CallAbandonedException>(() => waiting.WaitAsync(Patience));
        Assert.True(watch.DeadlineHit);
        watch.Dispose();
        operation.SetResult(0);
        await abandoned.Pending;
    }

    [Fact]
    public void A_disposed_watch_no_longer_has_a_deadline()
    {
        CallWatch watch = Start(TimeSpan.FromMilliseconds(50), CancellationToken.None)!;
        watch.Dispose();
        _clock.Advance(DeadlineSweep.Period * 4);
        Assert.False(watch.DeadlineHit);
    }

    [Fact]
    public void A_distant_deadline_does_not_fire_early()
    {
        using CallWatch watch = Start(TimeSpan.FromMinutes(5), CancellationToken.None)!;
        _clock.Advance(TimeSpan.FromMinutes(5) - Tick);
        Assert.False(watch.DeadlineHit);
        Assert.False(watch.Token.IsCancellationRequested);
        _clock.Advance(Tick);
        Assert.True(watch.DeadlineHit);
    }

    [Fact]
    public async Task Plain_tasks_are_watched_the_same_way()
    {
        using var cts = new CancellationTokenSource();
        using CallWatch watch = Start(cts.Token)!;
        await watch.WaitAsync(Task.CompletedTask);
        var failure = new InvalidOperationException("open failed");
        Assert.Same(failure, await Assert.ThrowsAsync<InvalidOperationException>(async () => await watch.WaitAsync(Task.FromException(failure))));

        var pending = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task waiting = watch.WaitAsync(pending.Task).AsTask();
        cts.Cancel();
        await AdvanceThroughGraceAsync(waiting);
        var abandoned = await Assert.ThrowsAsync<CallAbandonedException>(() => waiting.WaitAsync(Patience));
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
