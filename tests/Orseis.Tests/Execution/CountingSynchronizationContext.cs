namespace Orseis.Tests.Execution;

/// <summary>
/// A single-threaded application's <see cref="SynchronizationContext"/> (a UI thread's, classic ASP.NET's) reduced to
/// what a library must respect: every continuation posted to it is counted, then run on the thread pool with this
/// context current, as it would run on the UI thread. A library whose awaits all use <c>ConfigureAwait(false)</c> posts
/// nothing to it, which is what keeps a UI app that blocks on the library's task (sync over async) from deadlocking.
/// </summary>
public sealed class CountingSynchronizationContext : SynchronizationContext
{
    private int _posts;

    /// <summary>How many continuations were posted to this context.</summary>
    public int Posts => Volatile.Read(ref _posts);

    public override void Post(SendOrPostCallback d, object? state)
    {
        Interlocked.Increment(ref _posts);
        ThreadPool.UnsafeQueueUserWorkItem(
            _ =>
            {
                SynchronizationContext? previous = Current;
                SetSynchronizationContext(this);
                try
                {
                    d(state);
                }
                finally
                {
                    SetSynchronizationContext(previous);
                }
            },
            null);
    }

    public override void Send(SendOrPostCallback d, object? state) => throw new NotSupportedException("Send is not used by await.");

    public override SynchronizationContext CreateCopy() => this;

    /// <summary>Starts <paramref name="call"/> with this context current, as an event handler on the UI thread would.</summary>
    /// <returns>The call's task, to await outside this context.</returns>
    public Task<T> Start<T>(Func<Task<T>> call)
    {
        SynchronizationContext? previous = Current;
        SetSynchronizationContext(this);
        try
        {
            return call();
        }
        finally
        {
            SetSynchronizationContext(previous);
        }
    }

    /// <inheritdoc cref="Start{T}(Func{Task{T}})"/>
    public Task Start(Func<Task> call) => Start(async () =>
    {
        await call().ConfigureAwait(false);
        return true;
    });
}
