using System.Data;
using System.Data.Common;
using System.Runtime.CompilerServices;

namespace Orseis;

/// <summary>
/// Anything you can run SQL against: a <see cref="Database"/> (its <see cref="ExecutionMode"/> decides how each call
/// gets a connection) or a <see cref="Session"/> (one open connection). Both expose the same calls, so code written
/// against <see cref="SqlRunner"/> runs in either mode unchanged.
/// </summary>
/// <remarks>
/// Every call comes in a sync and an async form (the async form takes a <see cref="CancellationToken"/>), with the
/// arguments given as an object, a dictionary or <see cref="DbParameter"/>s, or as the holes of an interpolated string.
/// </remarks>
public abstract partial class SqlRunner
{
    private protected SqlRunner(ConnectionSource source) => Source = source;

    /// <summary>How this runner's calls get their connection: the one place its mode lives.</summary>
    internal ConnectionSource Source { get; }

    internal PoolContext Pool => Source.Pool;

    /// <summary>The type handlers of this runner's database; null when it has none.</summary>
    internal Mapping.TypeHandlerSet? Handlers
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => Source.Pool.Handlers;
    }

    /// <summary>
    /// The one executor behind every buffered call, sync and async alike: acquire, build, execute (through
    /// <paramref name="body"/>), release, reporting each step to the pool's telemetry.
    /// </summary>
    private ValueTask<TResult> RunAsync<TResult>(
        CommandRequest request, CallBody<TResult> body, bool async, CancellationToken cancellationToken)
    {
        // Not async itself: flow state set here stays in the caller's execution context across calls. Only a call that
        // may open needs it (reading an AsyncLocal costs a session call about 2 % of its instructions with detectors on).
        // The flow read here is handed to the open, which then does not read it again (a retried call's opens read it).
        Diagnostics.Detectors.FlowState? flow = Source.OpensPerCall ? Pool.Telemetry.EnterFlow() : null;
        if (Pool.Options.Retries is { } retries)
            return RunRetriedAsync(retries, request, body, async, cancellationToken);
        return Diagnostics.OrseisActivitySource.Tracing
            ? RunTracedAsync(request, body, async, flow, cancellationToken)
            : RunCoreAsync(request, body, async, cancellationToken, flow);
    }

    /// <summary>
    /// The call itself. <paramref name="flow"/> is the caller's flow as its entry point read it, for the open; null to let
    /// the open read it.
    /// </summary>
    private async ValueTask<TResult> RunCoreAsync<TResult>(
        CommandRequest request, CallBody<TResult> body, bool async, CancellationToken cancellationToken,
        Diagnostics.Detectors.FlowState? flow = null)
    {
        // Started in place when the connection is at hand, so the lifecycle is not copied through a task.
        if (!CallLifecycle.TryStart(
                this, request, CallShape.Buffered, async, cancellationToken, out CallLifecycle call, out ValueTask<Lease> later, flow))
        {
            await call.Resume(await later.ConfigureAwait(false), async).ConfigureAwait(false);
        }

        TResult result;
        try
        {
            result = await call.RunBodyAsync(body, async).ConfigureAwait(false);
            call.Complete();
        }
        catch (Exception error)
        {
            if (await call.FailAsync(error, async).ConfigureAwait(false) is { } reported)
                throw reported;
            throw;
        }
        finally
        {
            await call.EndAsync(async).ConfigureAwait(false);
        }

        // An output that could not be written to its member (ParameterBag.Output) is thrown once the connection is back.
        ParameterBag.ThrowIfOutputFailed(request.Args);
        return result;
    }

    private TResult Run<TResult>(CommandRequest request, CallBody<TResult> body)
    {
        ValueTask<TResult> pending = RunAsync(request, body, async: false, CancellationToken.None);
        return SyncPath.Done(pending);
    }

    internal static ValueTask<DbDataReader> ExecuteReaderAsync(DbCommand command, CommandBehavior behavior, bool async, CancellationToken cancellationToken) =>
        async ? new ValueTask<DbDataReader>(command.ExecuteReaderAsync(behavior, cancellationToken)) : new ValueTask<DbDataReader>(command.ExecuteReader(behavior));

    internal static ValueTask<bool> ReadAsync(DbDataReader reader, bool async, CancellationToken cancellationToken) =>
        async ? new ValueTask<bool>(reader.ReadAsync(cancellationToken)) : new ValueTask<bool>(reader.Read());

    internal static ValueTask<bool> NextResultAsync(DbDataReader reader, bool async, CancellationToken cancellationToken) =>
        async ? new ValueTask<bool>(reader.NextResultAsync(cancellationToken)) : new ValueTask<bool>(reader.NextResult());

    /// <summary>
    /// Moves through the command's remaining result sets, as Dapper does, so the later statements of a batch run to the
    /// end and an error one of them raises (or that the server sends after the rows) is thrown, not lost in the
    /// reader's disposal. The rows of those result sets are not read.
    /// </summary>
    /// <remarks>
    /// Not async itself: a provider whose last result set is already behind it (the common case of one statement)
    /// answers the first <c>NextResult</c> at once, and the drain then costs that one call and no async frame.
    /// </remarks>
    internal static ValueTask DrainAsync(DbDataReader reader, bool async, CancellationToken cancellationToken)
    {
        if (!async)
        {
            while (reader.NextResult())
            {
            }

            return default;
        }

        Task<bool> next = reader.NextResultAsync(cancellationToken);
        return next.IsCompletedSuccessfully && !next.Result ? default : DrainLaterAsync(next, reader, cancellationToken);
    }

    private static async ValueTask DrainLaterAsync(Task<bool> next, DbDataReader reader, CancellationToken cancellationToken)
    {
        while (await next.ConfigureAwait(false))
            next = reader.NextResultAsync(cancellationToken);
    }

    internal static ValueTask DisposeReaderAsync(DbDataReader reader, bool async)
    {
        if (async)
            return reader.DisposeAsync();
        reader.Dispose();
        return default;
    }
}
