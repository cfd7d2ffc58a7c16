using System.Data;
using System.Data.Common;
using System.Diagnostics;
using Orseis.Execution;

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
    internal Mapping.TypeHandlerSet? Handlers => Source.Pool.Handlers;

    /// <summary>
    /// What a call that failed with <paramref name="error"/> throws instead, or null to let it pass: a cancellation the
    /// provider misreports becomes an <see cref="OperationCanceledException"/>, then <see cref="ConnectionSource.TranslateFailure"/>.
    /// The failure is noted for the source (<see cref="ConnectionSource.NoteFailure"/>): it may have ended a transaction.
    /// </summary>
    internal Exception? Translate(DbConnection connection, Exception error, CancellationToken cancellationToken)
    {
        Source.NoteFailure(connection, error);
        return Cancellation.IsMisreported(error, cancellationToken)
            ? Cancellation.Reported(error, cancellationToken)
            : Source.TranslateFailure(connection, error);
    }

    /// <summary>
    /// The one executor behind every buffered call, sync and async alike: acquire, build, execute (through
    /// <paramref name="body"/>), release, reporting each step to the pool's telemetry.
    /// </summary>
    private ValueTask<TResult> RunAsync<TResult>(
        CommandRequest request, CallBody<TResult> body, bool async, CancellationToken cancellationToken)
    {
        // Not async itself: flow state set here stays in the caller's execution context across calls.
        Pool.Telemetry.EnterFlow();
        return Diagnostics.OrseisActivitySource.Tracing
            ? RunTracedAsync(request, body, async, cancellationToken)
            : RunCoreAsync(request, body, async, cancellationToken);
    }

    private async ValueTask<TResult> RunCoreAsync<TResult>(
        CommandRequest request, CallBody<TResult> body, bool async, CancellationToken cancellationToken)
    {
        // A call that blocks a pool thread for its whole round trip is the starvation detector's own evidence.
        bool blocking = Diagnostics.Detectors.BlockingCalls.Enter(blocks: !async || Pool.Traits.AsyncRunsSynchronously);
        Lease lease;
        try
        {
            lease = await Source.AcquireAsync(async, forStream: false, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            if (blocking)
                Diagnostics.Detectors.BlockingCalls.Exit();
            throw;
        }

        DbConnection connection = lease.Connection;
        DbCommand? command = null;
        bool failed = true;
        bool abandonedCall = false;
        try
        {
            command = Source.RentCommand(connection);
            Fill(command, request);
            long started = Pool.Telemetry.CommandStarting(request.Sql);

            // Only a call with a timeout of its own (or the database's) reads the clock, to tell its expiry from other failures.
            TimeSpan? timeout = Pool.WatchedTimeout(request.Timeout);
            long timed = timeout is null ? 0 : Stopwatch.GetTimestamp();
            try
            {
                TResult result = async
                    ? await RunWatchedAsync(command, Handlers, body, timeout, cancellationToken).ConfigureAwait(false)
                    : await body(command, Handlers, false, cancellationToken).ConfigureAwait(false);
                (request.Args as ParameterBag)?.ReadBack();
                Pool.Telemetry.CommandCompleted(started, succeeded: true);
                failed = false;
                return result;
            }
            catch (CallAbandonedException abandoned)
            {
                // The provider still uses the command and the connection: both are given back when it is done.
                Pool.Telemetry.CommandCompleted(started, succeeded: false, abandoned.Reported);
                DbCommand inUse = command;
                command = null;
                abandonedCall = true;
                Source.Abandon(lease, inUse, abandoned.Pending);
                throw abandoned.Reported;
            }
            catch (Exception error)
            {
                Pool.Telemetry.CommandCompleted(started, succeeded: false, error);
                Pool.Telemetry.CommandFailed(request.Sql, error);
                Exception? reported = Translate(connection, error, cancellationToken);
                reported = TimedOut(timeout, timed, error, connection, Source.Transaction is not null, cancellationToken) ?? reported;

                // While the call still holds the connection: did the server end the transaction the statement ran in?
                reported = await Source.SettleAsync(lease, async).ConfigureAwait(false) ?? reported;
                if (reported is not null)
                    throw reported;
                throw;
            }
        }
        finally
        {
            if (command is not null)
            {
                command.Parameters.Clear();
                Source.ReturnCommand(command, failed);
            }

            if (blocking)
                Diagnostics.Detectors.BlockingCalls.Exit();
            if (!abandonedCall)
                await Source.ReleaseAsync(lease, async).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Runs an async call's body under a <see cref="CallWatch"/> when the caller can cancel or a timeout (<see cref="PoolContext.WatchedTimeout"/>,
    /// worked out once per call by the caller) was set, so the
    /// call returns on time whatever the provider does; otherwise exactly as the provider runs it.
    /// </summary>
    private static async ValueTask<TResult> RunWatchedAsync<TResult>(
        DbCommand command, Mapping.TypeHandlerSet? handlers, CallBody<TResult> body, TimeSpan? timeout, CancellationToken cancellationToken)
    {
        using CallWatch? watch = CallWatch.Start(timeout, cancellationToken);
        if (watch is null)
            return await body(command, handlers, true, cancellationToken).ConfigureAwait(false);
        try
        {
            return await watch.WaitAsync(body(command, handlers, true, watch.Token)).ConfigureAwait(false);
        }
        catch (CallAbandonedException abandoned)
        {
            abandoned.Reported = Abandoned(watch, timeout, abandoned, cancellationToken);
            throw;
        }
        catch (Exception error) when (Stopped(watch, timeout, error, cancellationToken) is { } reported)
        {
            throw reported;
        }
    }

    /// <summary>
    /// A <see cref="CommandTimeoutException"/> for a provider's failure that came when the call's timeout had run out
    /// (the provider's own report of its command timeout, whatever its type or wording); null for any other failure.
    /// </summary>
    private static CommandTimeoutException? TimedOut(
        TimeSpan? timeout, long started, Exception error, DbConnection connection, bool inTransaction, CancellationToken cancellationToken)
    {
        if (timeout is not { } limit || started == 0 || error is OrseisException or OperationCanceledException || cancellationToken.IsCancellationRequested)
            return null;
        TimeSpan elapsed = Stopwatch.GetElapsedTime(started);
        if (elapsed < limit - TimeSpan.FromMilliseconds(50))
            return null;
        return new CommandTimeoutException(
            $"The call did not complete within its command timeout of {limit.TotalSeconds:0.###} s (the call's timeout argument, or " +
            $"OrseisOptions.CommandTimeout); the provider stopped it after {elapsed.TotalSeconds:0.###} s. " +
            "Whether the statement took effect is unknown." +
            (connection.State == ConnectionState.Open ? "" : inTransaction
                ? " The provider closed the connection as it stopped the statement, so the open transaction is lost " +
                  "(the server rolls it back): " +
                  "dispose the transaction; the next call after that opens a new connection."
                : " The provider closed the connection as it stopped the statement; the next call opens a new connection."),
            limit, error);
    }

    /// <summary>What the caller gets for a provider operation that a <see cref="CallWatch"/> had to abandon.</summary>
    private static Exception Abandoned(CallWatch watch, TimeSpan? timeout, Exception abandoned, CancellationToken cancellationToken)
    {
        const string Why = "the provider did not stop within a second, so Orseis abandoned the call: its connection is closed once the provider lets " +
                           "go of it, and a session or ReuseConnection database opens a new one for its next call.";
        if (watch.CallerCancelled)
            return new OperationCanceledException($"The call was cancelled; {Why}", abandoned, cancellationToken);
        return new CommandTimeoutException(
            $"The call did not complete within its command timeout of {timeout?.TotalSeconds:0.###} s " +
            $"(the call's timeout argument, or OrseisOptions.CommandTimeout); {Why}", timeout ?? TimeSpan.Zero, abandoned);
    }

    /// <summary>The error for a provider operation that ended because a <see cref="CallWatch"/> stopped it; null for any other failure.</summary>
    private static Exception? Stopped(CallWatch watch, TimeSpan? timeout, Exception error, CancellationToken cancellationToken)
    {
        if (watch.CallerCancelled)
            return error is OperationCanceledException oce && oce.CancellationToken == cancellationToken ? null : Cancellation.Reported(error, cancellationToken);
        if (watch.DeadlineHit)
        {
            return new CommandTimeoutException(
                $"The call did not complete within its command timeout of {timeout?.TotalSeconds:0.###} s (the call's timeout argument, or " +
                "OrseisOptions.CommandTimeout); the provider was stopped.", timeout ?? TimeSpan.Zero, error);
        }

        return null;
    }

    private TResult Run<TResult>(CommandRequest request, CallBody<TResult> body)
    {
        ValueTask<TResult> pending = RunAsync(request, body, async: false, CancellationToken.None);
        return SyncPath.Done(pending);
    }

    /// <summary>A new command for a stream, which keeps it for as long as the stream is read.</summary>
    private DbCommand CreateCommand(DbConnection connection, CommandRequest request)
    {
        DbCommand command = connection.CreateCommand();
        try
        {
            Fill(command, request);
            return command;
        }
        catch
        {
            command.Parameters.Clear();
            command.Dispose();
            throw;
        }
    }

    /// <summary>Sets the call's transaction, timeout, parameters and text on <paramref name="command"/>.</summary>
    private void Fill(DbCommand command, CommandRequest request)
    {
        command.Transaction = Source.Transaction;
        if (Pool.TimeoutSeconds(request.Timeout) is { } seconds)
            command.CommandTimeout = seconds;

        // A kept command may come from a procedure call (ParameterBag.CommandType); any other call is text.
        if (request.Args is not ParameterBag && command.CommandType != CommandType.Text)
            command.CommandType = CommandType.Text;
        command.CommandText = ParameterBinder.Bind(command, request.Sql, request.Args, Handlers);
    }

    internal static ValueTask<DbDataReader> ExecuteReaderAsync(DbCommand command, CommandBehavior behavior, bool async, CancellationToken cancellationToken) =>
        async ? new ValueTask<DbDataReader>(command.ExecuteReaderAsync(behavior, cancellationToken)) : new ValueTask<DbDataReader>(command.ExecuteReader(behavior));

    internal static ValueTask<bool> ReadAsync(DbDataReader reader, bool async, CancellationToken cancellationToken) =>
        async ? new ValueTask<bool>(reader.ReadAsync(cancellationToken)) : new ValueTask<bool>(reader.Read());

    internal static ValueTask<bool> NextResultAsync(DbDataReader reader, bool async, CancellationToken cancellationToken) =>
        async ? new ValueTask<bool>(reader.NextResultAsync(cancellationToken)) : new ValueTask<bool>(reader.NextResult());

    internal static ValueTask DisposeReaderAsync(DbDataReader reader, bool async)
    {
        if (async)
            return reader.DisposeAsync();
        reader.Dispose();
        return default;
    }
}
