using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Execution.Calls;

/// <summary>The start of a call: its connection acquired, its command rented or created and filled, its watch started.</summary>
internal partial struct CallLifecycle
{
    /// <summary>
    /// Acquires the connection and readies the command. A failure on the way gives back what was taken and throws.
    /// </summary>
    public static ValueTask<CallLifecycle> StartAsync(
        SqlRunner runner, CommandRequest request, CallShape shape, bool async, CancellationToken cancellationToken) =>
        TryStart(runner, request, shape, async, cancellationToken, out CallLifecycle call, out ValueTask<Lease> later)
            ? new ValueTask<CallLifecycle>(call)
            : StartLaterAsync(call, later, async);

    /// <summary>
    /// <see cref="StartAsync"/> written into the caller's own copy (<paramref name="call"/>, true) when the connection is at
    /// hand (a session, a kept connection, a pooled open that completes at once): no async frame, and the lifecycle is
    /// not copied through a task. False when the acquire is still pending or the start failed: the caller awaits
    /// <paramref name="later"/>, the connection, and gives it to <see cref="Resume"/> on its copy (awaiting that too).
    /// </summary>
    /// <remarks>
    /// Only the connection waits in a task, never the lifecycle: the callers' frames and state machines stay small.
    /// <paramref name="flow"/> is the caller's flow as its entry point read it, handed to an open; null to let the open read it.
    /// </remarks>
    public static bool TryStart(
        SqlRunner runner, CommandRequest request, CallShape shape, bool async, CancellationToken cancellationToken,
        out CallLifecycle call, out ValueTask<Lease> later, FlowState? flow = null)
    {
        // A buffered call that blocks a pool thread for its whole round trip is the starvation detector's own evidence.
        bool blocking = shape == CallShape.Buffered && BlockingCalls.Enter(blocks: !async || runner.Pool.Traits.AsyncRunsSynchronously);
        ValueTask<Lease> acquiring;
        try
        {
            acquiring = runner.Source.AcquireAsync(async, forStream: shape != CallShape.Buffered, cancellationToken, flow);
        }
        catch
        {
            if (blocking)
                BlockingCalls.Exit();
            throw;
        }

        Init(out call, runner, request, shape, blocking, cancellationToken);
        if (!acquiring.IsCompletedSuccessfully)
        {
            later = blocking ? AcquireLaterAsync(acquiring) : acquiring;
            return false;
        }

        later = default;
        call.Lease = acquiring.Result;
        try
        {
            call.Begin(async);
        }
        catch (Exception error)
        {
            later = EndThenThrow(ref call, error, async);
            return false;
        }

        return true;
    }

    /// <summary>
    /// <see cref="EndThenThrowAsync{T}"/> for a start that failed in <see cref="TryStart"/>: a method of its own, so the
    /// copy of the lifecycle it passes on is not a local of every start.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ValueTask<Lease> EndThenThrow(ref CallLifecycle call, Exception error, bool async) =>
        EndThenThrowAsync<Lease>(call, ExceptionDispatchInfo.Capture(error), async);

    /// <summary>
    /// The rest of a start that <see cref="TryStart"/> left to its caller, on the caller's copy: the command readied on
    /// <paramref name="lease"/>, the connection that came later. Completes at once unless the start failed: the connection
    /// is then given back and the failure thrown.
    /// </summary>
    public ValueTask Resume(Lease lease, bool async)
    {
        Lease = lease;
        try
        {
            Begin(async);
        }
        catch (Exception error)
        {
            return new ValueTask(EndThenThrowAsync<bool>(this, ExceptionDispatchInfo.Capture(error), async).AsTask());
        }

        return default;
    }

    /// <summary><see cref="StartAsync"/> once a pending acquire completes. Pooled: no state machine per call.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static async ValueTask<CallLifecycle> StartLaterAsync(CallLifecycle call, ValueTask<Lease> later, bool async)
    {
        await call.Resume(await later.ConfigureAwait(false), async).ConfigureAwait(false);
        return call;
    }

    /// <summary>A pending acquire of a call that blocks its thread: a failure ends the blocking. Pooled.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static async ValueTask<Lease> AcquireLaterAsync(ValueTask<Lease> acquiring)
    {
        try
        {
            return await acquiring.ConfigureAwait(false);
        }
        catch
        {
            BlockingCalls.Exit();
            throw;
        }
    }

    /// <summary>A start that failed after the connection was acquired: gives it back, then throws <paramref name="error"/>.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static async ValueTask<T> EndThenThrowAsync<T>(CallLifecycle call, ExceptionDispatchInfo error, bool async)
    {
        await call.EndAsync(async).ConfigureAwait(false);
        error.Throw();
        return default!;
    }
}
