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
        ValueTask<Lease> acquiring = Source.AcquireAsync(async: false, forStream: true, CancellationToken.None);
        Lease lease = SyncPath.Done(acquiring);
        DbConnection connection = lease.Connection;
        try
        {
            using DbCommand command = CreateCommand(connection, request);
            long started = Pool.Telemetry.CommandStarting(request.Sql);
            DbDataReader? reader = null;
            bool finished = false;

            // True only while a step that can throw runs, so the finally below tells a failure from an early exit.
            bool failed = true;
            try
            {
                reader = SyncPath.Done(ExecuteStreamReaderAsync(command, connection, async: false, CancellationToken.None));
                Func<DbDataReader, T>? map = null;
                while (SyncPath.Done(ReadStreamRowAsync(reader, connection, async: false, CancellationToken.None)))
                {
                    map ??= RowMapper<T>.Get(reader, command.CommandText, Handlers);
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
                        SyncPath.Done(CloseReaderAsync(command, reader, finished, async: false));
                    if (finished)
                        (request.Args as ParameterBag)?.ReadBack();
                }
                finally
                {
                    // Even when the reader's disposal throws (a dead connection), the command's stop is reported.
                    command.Parameters.Clear();
                    Pool.Telemetry.CommandCompleted(started, succeeded: !failed);
                }
            }
        }
        finally
        {
            SyncPath.Done(Source.ReleaseAsync(lease, async: false));
        }
    }

    private async IAsyncEnumerable<T> StreamAsyncIterator<T>(CommandRequest request, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        Lease lease = await Source.AcquireAsync(async: true, forStream: true, cancellationToken).ConfigureAwait(false);
        DbConnection connection = lease.Connection;
        // Cancellation only: a command timeout bounds each statement's wait in the provider, not how long the caller
        // takes to read the rows, so no deadline covers the whole stream.
        StreamWatch? watch = StreamWatch.Start(timeout: null, cancellationToken);
        DbCommand? command = null;
        try
        {
            command = CreateCommand(connection, request);
            long started = Pool.Telemetry.CommandStarting(request.Sql);
            DbDataReader? reader = null;
            bool finished = false;
            bool failed = true;
            try
            {
                reader = await ExecuteStreamReaderAsync(command, connection, async: true, cancellationToken, watch).ConfigureAwait(false);
                Func<DbDataReader, T>? map = null;
                while (await ReadStreamRowAsync(reader, connection, async: true, cancellationToken, watch).ConfigureAwait(false))
                {
                    map ??= RowMapper<T>.Get(reader, command.CommandText, Handlers);
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
                    if (reader is not null && watch?.Abandoned is null)
                        await CloseReaderAsync(command, reader, finished, async: true).ConfigureAwait(false);
                    if (finished)
                        (request.Args as ParameterBag)?.ReadBack();
                }
                finally
                {
                    if (watch?.Abandoned is null)
                        command.Parameters.Clear();
                    Pool.Telemetry.CommandCompleted(started, succeeded: !failed);
                }
            }
        }
        finally
        {
            if (watch?.Abandoned is { } pending)
            {
                Source.Abandon(lease, command!, pending);
            }
            else
            {
                if (command is not null)
                    await command.DisposeAsync().ConfigureAwait(false);
                await Source.ReleaseAsync(lease, async: true).ConfigureAwait(false);
            }

            watch?.Dispose();
        }
    }

    // An iterator cannot catch around a yield, so the steps of a stream that talk to the server translate their own
    // failures here, the same way the buffered calls do (see Translate and RunWatchedAsync).
    private async ValueTask<DbDataReader> ExecuteStreamReaderAsync(
        DbCommand command, DbConnection connection, bool async, CancellationToken cancellationToken, StreamWatch? watch = null)
    {
        try
        {
            return watch is null
                ? await ExecuteReaderAsync(command, CommandBehavior.SingleResult, async, cancellationToken).ConfigureAwait(false)
                : await watch.Watch.WaitAsync(ExecuteReaderAsync(command, CommandBehavior.SingleResult, async, watch.Watch.Token)).ConfigureAwait(false);
        }
        catch (Exception error) when (StreamFailure(connection, error, watch, cancellationToken) is { } translated)
        {
            throw translated;
        }
    }

    /// <summary>A read with failures translated; no allocation when the read completes at once.</summary>
    private ValueTask<bool> ReadStreamRowAsync(DbDataReader reader, DbConnection connection, bool async, CancellationToken cancellationToken, StreamWatch? watch = null)
    {
        // The caller's cancel reaches the provider's token on the thread pool, a moment later, and a provider may hand out
        // rows it already holds without looking at its token (Microsoft.Data.Sqlite does): so the caller's own token is
        // checked before every row, and a cancelled stream stops at the next one whatever the provider does.
        cancellationToken.ThrowIfCancellationRequested();
        ValueTask<bool> read;
        try
        {
            read = ReadAsync(reader, async, watch?.Watch.Token ?? cancellationToken);
        }
        catch (Exception error) when (StreamFailure(connection, error, watch, cancellationToken) is { } translated)
        {
            throw translated;
        }

        return read.IsCompletedSuccessfully ? read : AwaitStreamRowAsync(read, connection, watch, cancellationToken);
    }

    private async ValueTask<bool> AwaitStreamRowAsync(ValueTask<bool> read, DbConnection connection, StreamWatch? watch, CancellationToken cancellationToken)
    {
        try
        {
            return watch is null ? await read.ConfigureAwait(false) : await watch.Watch.WaitAsync(read).ConfigureAwait(false);
        }
        catch (Exception error) when (StreamFailure(connection, error, watch, cancellationToken) is { } translated)
        {
            throw translated;
        }
    }

    /// <summary>What a stream's step throws for <paramref name="error"/>: as a buffered call would, abandonment and deadlines included.</summary>
    private Exception? StreamFailure(DbConnection connection, Exception error, StreamWatch? watch, CancellationToken cancellationToken)
    {
        if (watch is not null)
        {
            if (error is CallAbandonedException abandoned)
            {
                watch.Abandoned = abandoned.Pending;
                return Abandoned(watch.Watch, watch.Timeout, abandoned, cancellationToken);
            }

            if (Stopped(watch.Watch, watch.Timeout, error, cancellationToken) is { } stopped)
                return stopped;
        }

        return Translate(connection, error, cancellationToken);
    }

    /// <summary>A <see cref="CallWatch"/> over a whole async stream, with what it needs to report and what it abandoned.</summary>
    private sealed class StreamWatch(CallWatch watch, TimeSpan? timeout) : IDisposable
    {
        public CallWatch Watch { get; } = watch;

        public TimeSpan? Timeout { get; } = timeout;

        /// <summary>The provider operation left running when the stream was abandoned.</summary>
        public Task? Abandoned { get; set; }

        public static StreamWatch? Start(TimeSpan? timeout, CancellationToken cancellationToken) =>
            CallWatch.Start(timeout, cancellationToken) is { } watch ? new StreamWatch(watch, timeout) : null;

        public void Dispose() => Watch.Dispose();
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
    private static void TryCancel(DbCommand command)
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
