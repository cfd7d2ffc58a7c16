using System.Data.Common;

namespace Orseis.Execution.Calls;

/// <summary>
/// Watches one asynchronous provider operation so that the caller gets control back on time whatever the provider
/// does: a cancelled call returns within <see cref="Grace"/> of the cancel, and a call with a deadline returns within
/// <see cref="Grace"/> of it, even when the provider's own cancellation cannot reach the server (a server that stopped
/// answering). The provider gets a token of its own, cancelled on a thread-pool thread, so the caller's
/// <c>Cancel()</c> never blocks on the provider's cancel round trip (MySqlConnector opens a connection to send
/// <c>KILL QUERY</c>). An operation still running after the grace is abandoned: <see cref="WaitAsync{T}"/> throws
/// <see cref="CallAbandonedException"/>, whose <see cref="CallAbandonedException.Pending"/> the caller uses to give the
/// connection back only once the provider is done with it.
/// </summary>
/// <remarks>
/// Time is the database's clock, through its <see cref="DeadlineSweep"/>: the sweep fires the deadline and its
/// <see cref="DeadlineSweep.Time"/> times the grace, so a test's fake clock drives both without waiting.
/// </remarks>
internal sealed class CallWatch : IDisposable
{
    /// <summary>How long a provider may take to stop after a cancel or a deadline before the call is abandoned.</summary>
    public static readonly TimeSpan Grace = TimeSpan.FromSeconds(1);

    private readonly CancellationTokenSource _provider = new();

    /// <summary>
    /// Completed when the watch stops the call. Its task's <see cref="Task.AsyncState"/> carries the watch's
    /// <see cref="DeadlineSweep"/> (<see cref="Sweep"/>): a field of its own would make every watch 8 bytes larger.
    /// </summary>
    private readonly TaskCompletionSource _stop;
    private readonly CancellationToken _caller;
    private readonly CancellationTokenRegistration _registration;
    private readonly bool _hasDeadline;
    private int _deadlineHit;
    private Task? _abandoned;
    private CancellationTokenRegistration _commandCancel;

    private CallWatch(DeadlineSweep sweep, TimeSpan? deadline, CancellationToken caller)
    {
        _stop = new TaskCompletionSource(sweep, TaskCreationOptions.RunContinuationsAsynchronously);
        _caller = caller;

        // Already cancelled: nothing of the provider's is registered on its token yet, so cancelling here cannot block.
        if (caller.IsCancellationRequested)
        {
            _provider.Cancel();
            _stop.TrySetResult();
        }
        else if (caller.CanBeCanceled)
        {
            _registration = caller.UnsafeRegister(static state => ((CallWatch)state!).Stop(), this);
        }

        if (deadline is { } limit)
        {
            _hasDeadline = true;
            sweep.Add(this, limit);
        }
    }

    /// <summary>Called by <see cref="DeadlineSweep"/> once the deadline has passed.</summary>
    internal void DeadlineReached()
    {
        Volatile.Write(ref _deadlineHit, 1);
        Stop();
    }

    /// <summary>
    /// A watch for a call with <paramref name="caller"/>'s token and an optional deadline, on the clock of
    /// <paramref name="sweep"/> (the database's, <see cref="PoolContext.Deadlines"/>), or null when there is nothing to
    /// watch (no cancellable token, no deadline): the call then runs exactly as the provider runs it, allocating nothing.
    /// </summary>
    public static CallWatch? Start(DeadlineSweep sweep, TimeSpan? deadline, CancellationToken caller) =>
        caller.CanBeCanceled || deadline is not null ? new CallWatch(sweep, deadline, caller) : null;

    /// <inheritdoc cref="Start(DeadlineSweep, TimeSpan?, CancellationToken)"/>
    public static CallWatch? Start(DeadlineSweep sweep, CancellationToken caller) => Start(sweep, null, caller);

    /// <summary>The token to give the provider instead of the caller's.</summary>
    public CancellationToken Token => _provider.Token;

    /// <summary>True when the deadline, not the caller, stopped the operation.</summary>
    public bool DeadlineHit => Volatile.Read(ref _deadlineHit) != 0;

    /// <summary>Cancels <paramref name="command"/> (<see cref="DbCommand.Cancel"/>) when the watch stops the call.</summary>
    public void CancelOnStop(DbCommand command) =>
        _commandCancel = _provider.Token.UnsafeRegister(static state => SqlRunner.TryCancel((DbCommand)state!), command);

    /// <summary>The provider operation still running when <see cref="WaitAsync{T}"/> abandoned it; null when none was.</summary>
    public Task? Abandoned => _abandoned;

    /// <summary>True when the caller's token was cancelled.</summary>
    public bool CallerCancelled => _caller.IsCancellationRequested;

    /// <summary>The sweep that holds the deadline, on the clock that times the grace.</summary>
    private DeadlineSweep Sweep => (DeadlineSweep)_stop.Task.AsyncState!;

    private void Stop()
    {
        _stop.TrySetResult();
        ThreadPool.UnsafeQueueUserWorkItem(
            static source =>
            {
                try
                {
                    source.Cancel();
                }
#pragma warning disable CA1031 // a provider's cancel callback that throws must not crash the thread pool
                catch (Exception)
#pragma warning restore CA1031
                {
                }
            },
            _provider, preferLocal: false);
    }

    /// <summary>
    /// Waits for <paramref name="operation"/>: its result or failure when it ends in time, or
    /// <see cref="CallAbandonedException"/> when it is still running <see cref="Grace"/> after a cancel or the deadline.
    /// </summary>
    public async ValueTask<T> WaitAsync<T>(ValueTask<T> operation)
    {
        if (operation.IsCompleted)
            return await operation.ConfigureAwait(false);
        Task<T> task = operation.AsTask();
        if (await Task.WhenAny(task, _stop.Task).ConfigureAwait(false) != task &&
            await Task.WhenAny(task, Task.Delay(Grace, Sweep.Time, CancellationToken.None)).ConfigureAwait(false) != task)
        {
            _abandoned = task;
            throw new CallAbandonedException(task);
        }

        return await task.ConfigureAwait(false);
    }

    /// <inheritdoc cref="WaitAsync{T}(ValueTask{T})"/>
    public async ValueTask WaitAsync(Task operation) =>
        await WaitAsync(WrapAsync(operation)).ConfigureAwait(false);

    private static async ValueTask<bool> WrapAsync(Task operation)
    {
        await operation.ConfigureAwait(false);
        return true;
    }

    public void Dispose()
    {
        _registration.Dispose();
        _commandCancel.Dispose();
        if (_hasDeadline)
            Sweep.Remove(this);

        // An abandoned operation may still use the provider's token; its source is disposed when it is done.
        if (_abandoned is { } pending)
            pending.ContinueWith(static (_, source) => ((CancellationTokenSource)source!).Dispose(), _provider, TaskScheduler.Default);
        else
            _provider.Dispose();
    }
}

/// <summary>A provider operation went on past its cancel or deadline and was left to finish on its own.</summary>
internal sealed class CallAbandonedException(Task pending)
    : Exception("The provider did not stop within the grace period; the operation was abandoned.")
{
    /// <summary>The operation, still running; the connection under it is the provider's until it completes.</summary>
    public Task Pending { get; } = pending;

    /// <summary>What the caller is told (a cancellation or a timeout); set by whoever knows why the call was stopped.</summary>
    public Exception Reported { get; set; } = new OperationCanceledException("The call was abandoned.");
}
