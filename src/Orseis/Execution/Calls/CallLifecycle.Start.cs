using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Execution;

/// <summary>The start of a call: its connection acquired, its command rented or created and filled, its watch started.</summary>
internal partial struct CallLifecycle
{
    /// <summary>
    /// Acquires the connection and readies the command. A failure on the way gives back what was taken and throws.
    /// </summary>
    public static ValueTask<CallLifecycle> StartAsync(
        SqlRunner runner, CommandRequest request, CallShape shape, bool async, CancellationToken cancellationToken) =>
        TryStart(runner, request, shape, async, cancellationToken, out CallLifecycle call, out ValueTask<CallLifecycle> later)
            ? new ValueTask<CallLifecycle>(call)
            : later;

    /// <summary>
    /// <see cref="StartAsync"/> written into the caller's own copy (<paramref name="call"/>, true) when the connection is at
    /// hand (a session, a kept connection, a pooled open that completes at once): no async frame, and the lifecycle is
    /// not copied through a task. False when the acquire is still pending or the start failed: <paramref name="later"/>
    /// is the lifecycle to await.
    /// </summary>
    public static bool TryStart(
        SqlRunner runner, CommandRequest request, CallShape shape, bool async, CancellationToken cancellationToken,
        out CallLifecycle call, out ValueTask<CallLifecycle> later)
    {
        // A buffered call that blocks a pool thread for its whole round trip is the starvation detector's own evidence.
        bool blocking = shape == CallShape.Buffered && BlockingCalls.Enter(blocks: !async || runner.Pool.Traits.AsyncRunsSynchronously);
        ValueTask<Lease> acquiring;
        try
        {
            acquiring = runner.Source.AcquireAsync(async, forStream: shape != CallShape.Buffered, cancellationToken);
        }
        catch
        {
            if (blocking)
                BlockingCalls.Exit();
            throw;
        }

        if (!acquiring.IsCompletedSuccessfully)
        {
            call = default;
            later = StartLaterAsync(runner, request, shape, acquiring, blocking, async, cancellationToken);
            return false;
        }

        call = new CallLifecycle(runner, request, shape, acquiring.Result, blocking, cancellationToken);
        try
        {
            call.Begin(async);
        }
        catch (Exception error)
        {
            later = EndThenThrowAsync(call, ExceptionDispatchInfo.Capture(error), async);
            call = default;
            return false;
        }

        later = default;
        return true;
    }

    /// <summary>The rest of <see cref="TryStart"/> once a pending acquire completes. Pooled: no state machine per call.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<CallLifecycle> StartLaterAsync(
        SqlRunner runner, CommandRequest request, CallShape shape, ValueTask<Lease> acquiring, bool blocking, bool async,
        CancellationToken cancellationToken)
    {
        Lease lease;
        try
        {
            lease = await acquiring.ConfigureAwait(false);
        }
        catch
        {
            if (blocking)
                BlockingCalls.Exit();
            throw;
        }

        var call = new CallLifecycle(runner, request, shape, lease, blocking, cancellationToken);
        try
        {
            call.Begin(async);
        }
        catch
        {
            await call.EndAsync(async).ConfigureAwait(false);
            throw;
        }

        return call;
    }

    /// <summary>A start that failed after the connection was acquired: gives it back, then throws <paramref name="error"/>.</summary>
    private static async ValueTask<CallLifecycle> EndThenThrowAsync(CallLifecycle call, ExceptionDispatchInfo error, bool async)
    {
        await call.EndAsync(async).ConfigureAwait(false);
        error.Throw();
        return call;
    }
}
