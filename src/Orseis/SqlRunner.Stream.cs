using System.Data;
using System.Data.Common;
using System.Runtime.CompilerServices;
using Orseis.Mapping;

namespace Orseis;

public abstract partial class SqlRunner
{
    /// <summary>
    /// The rows of a stream run with <c>async: false</c>, whose every step completes at once (as a sync buffered call's
    /// does), read synchronously: one iterator serves both forms.
    /// </summary>
    private static IEnumerable<T> SyncRows<T>(IAsyncEnumerable<T> rows)
    {
        IAsyncEnumerator<T> reading = rows.GetAsyncEnumerator(CancellationToken.None);
        try
        {
            while (SyncPath.Done(reading.MoveNextAsync()))
                yield return reading.Current;
        }
        finally
        {
            SyncPath.Done(reading.DisposeAsync());
        }
    }

    private async IAsyncEnumerable<T> StreamRowsAsync<T>(
        CommandRequest request, bool async, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        CallLifecycle call = await CallLifecycle.StartAsync(this, request, CallShape.Stream, async, cancellationToken).ConfigureAwait(false);
        DbDataReader? reader = null;
        bool finished = false;
        bool failed = true;
        try
        {
            reader = await ExecuteStreamReaderAsync(call, async).ConfigureAwait(false);
            Func<DbDataReader, T>? map = null;
            while (await ReadStreamRowAsync(reader, call, async).ConfigureAwait(false))
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
                    await CloseReaderAsync(call.Command, reader, finished, async).ConfigureAwait(false);
            }
            catch (Exception) when (failed)
            {
            }
            finally
            {
                if (failed)
                    call.Fail(null);
                else
                    call.Complete(readBack: finished); // outputs arrive only when every row was read
                await call.EndAsync(async).ConfigureAwait(false);
                if (finished && !failed)
                    ParameterBag.ThrowIfOutputFailed(request.Args);
            }
        }
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
