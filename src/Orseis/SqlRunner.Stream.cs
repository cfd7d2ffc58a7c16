using System.Data;
using System.Data.Common;
using System.Runtime.CompilerServices;
using Orseis.Execution;
using Orseis.Mapping;

namespace Orseis;

public abstract partial class SqlRunner
{
    /// <summary>
    /// Runs <paramref name="sql"/> when enumeration starts and yields rows one at a time, unbuffered. The connection and
    /// reader are held until the enumeration ends or is disposed (a <c>foreach</c> does both, also on <c>break</c> and
    /// on exceptions).
    /// </summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The rows, read lazily.</returns>
    public IEnumerable<T> Stream<T>(string sql, object? args = null, TimeSpan? timeout = null)
    {
        Pool.Telemetry.EnterFlow();
        var request = new CommandRequest(sql, args, timeout);
        return Diagnostics.OrseisActivitySource.Tracing ? TracedStream(request, StreamIterator<T>(request)) : StreamIterator<T>(request);
    }

    /// <summary>
    /// Runs <paramref name="sql"/> when enumeration starts and yields rows one at a time, unbuffered. The connection and
    /// reader are held until the enumeration ends or is disposed (<c>await foreach</c> does both).
    /// </summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call (as does the token given to <c>WithCancellation</c>).</param>
    /// <returns>The rows, read lazily.</returns>
    public IAsyncEnumerable<T> StreamAsync<T>(string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default)
    {
        Pool.Telemetry.EnterFlow();
        var request = new CommandRequest(sql, args, timeout);
        return Diagnostics.OrseisActivitySource.Tracing
            ? TracedStreamAsync(request, StreamAsyncIterator<T>(request, cancellationToken), CancellationToken.None)
            : StreamAsyncIterator<T>(request, cancellationToken);
    }

    private IEnumerable<T> StreamIterator<T>(CommandRequest request)
    {
        CallLifecycle call = SyncPath.Done(CallLifecycle.StartAsync(this, request, CallShape.Stream, async: false, CancellationToken.None));
        DbDataReader? reader = null;
        bool finished = false;

        // True only while a step that can throw runs, so the finally below tells a failure from an early exit.
        bool failed = true;
        try
        {
            reader = SyncPath.Done(ExecuteStreamReaderAsync(call, async: false));
            Func<DbDataReader, T>? map = null;
            while (SyncPath.Done(ReadStreamRowAsync(reader, call, async: false)))
            {
                map ??= RowMapper<T>.Get(reader, call.Command.CommandText, Handlers);
                T row = map(reader);
                failed = false;
                yield return row;
                failed = true;
            }

            finished = true;
            failed = false;
        }
        finally
        {
            try
            {
                if (reader is not null)
                    SyncPath.Done(CloseReaderAsync(call.Command, reader, finished, async: false));
            }
            catch (Exception) when (failed)
            {
                // The caller gets the step's own error, not the reader's failure to close after it (see CloseReaderAsync).
            }
            finally
            {
                // Even when the reader's disposal throws (a dead connection), the command's stop is reported.
                EndStream(ref call, failed, finished);
                SyncPath.Done(call.EndAsync(async: false));
            }
        }
    }

    private async IAsyncEnumerable<T> StreamAsyncIterator<T>(CommandRequest request, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        CallLifecycle call = await CallLifecycle.StartAsync(this, request, CallShape.Stream, async: true, cancellationToken).ConfigureAwait(false);
        DbDataReader? reader = null;
        bool finished = false;
        bool failed = true;
        try
        {
            reader = await ExecuteStreamReaderAsync(call, async: true).ConfigureAwait(false);
            Func<DbDataReader, T>? map = null;
            while (await ReadStreamRowAsync(reader, call, async: true).ConfigureAwait(false))
            {
                map ??= RowMapper<T>.Get(reader, call.Command.CommandText, Handlers);
                T row = map(reader);
                failed = false;
                yield return row;
                failed = true;
            }

            finished = true;
            failed = false;
        }
        finally
        {
            try
            {
                // An abandoned read still runs in the provider: the reader goes with its connection, later.
                if (reader is not null && call.Watch?.Abandoned is null)
                    await CloseReaderAsync(call.Command, reader, finished, async: true).ConfigureAwait(false);
            }
            catch (Exception) when (failed)
            {
            }
            finally
            {
                EndStream(ref call, failed, finished);
                await call.EndAsync(async: true).ConfigureAwait(false);
            }
        }
    }

    /// <summary>A stream's outcome: failed, or complete (its outputs read back only when every row was read).</summary>
    private static void EndStream(ref CallLifecycle call, bool failed, bool finished)
    {
        if (failed)
            call.Fail(null);
        else
            call.Complete(readBack: finished);
    }

    // An iterator cannot catch around a yield, so the steps of a stream that talk to the server translate their own
    // failures here, through the same lifecycle as a buffered call.
    private static async ValueTask<DbDataReader> ExecuteStreamReaderAsync(CallLifecycle call, bool async)
    {
        try
        {
            return await call.WatchAsync(ExecuteReaderAsync(call.Command, CommandBehavior.SingleResult, async, call.Token)).ConfigureAwait(false);
        }
        catch (Exception error) when (call.Report(error, call.Caller) is { } translated)
        {
            throw translated;
        }
    }

    /// <summary>A read with failures translated; no allocation when the read completes at once.</summary>
    private static ValueTask<bool> ReadStreamRowAsync(DbDataReader reader, in CallLifecycle call, bool async)
    {
        // The caller's cancel reaches the provider's token on the thread pool, a moment later, and a provider may hand out
        // rows it already holds without looking at its token (Microsoft.Data.Sqlite does): so the caller's own token is
        // checked before every row, and a cancelled stream stops at the next one whatever the provider does.
        call.Caller.ThrowIfCancellationRequested();

        ValueTask<bool> read;
        try
        {
            read = ReadAsync(reader, async, call.Token);
        }
        catch (Exception error) when (call.Report(error, call.Caller) is { } translated)
        {
            throw translated;
        }

        return read.IsCompletedSuccessfully ? read : AwaitStreamRowAsync(read, call);
    }

    private static async ValueTask<bool> AwaitStreamRowAsync(ValueTask<bool> read, CallLifecycle call)
    {
        try
        {
            return await call.WatchAsync(read).ConfigureAwait(false);
        }
        catch (Exception error) when (call.Report(error, call.Caller) is { } translated)
        {
            throw translated;
        }
    }

    internal static ValueTask CloseReaderAsync(DbCommand command, DbDataReader reader, bool finished, bool async)
    {
        if (!finished)
            TryCancel(command);
        return DisposeReaderAsync(reader, async);
    }

    /// <summary>
    /// Asks the server to stop sending the rest of an abandoned result, so disposing the reader does not drain it
    /// (SQL Server and MySQL would otherwise read every remaining row).
    /// </summary>
    internal static void TryCancel(DbCommand command)
    {
        try
        {
            command.Cancel();
        }
        catch (Exception)
        {
            // Cancel is best effort: some providers do not support it, and the reader's disposal still cleans up.
        }
    }
}
