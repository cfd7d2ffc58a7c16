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
        return StreamIterator<T>(new CommandRequest(sql, args, timeout));
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
        return StreamAsyncIterator<T>(new CommandRequest(sql, args, timeout), cancellationToken);
    }

    private IEnumerable<T> StreamIterator<T>(CommandRequest request)
    {
        ValueTask<DbConnection> acquiring = AcquireAsync(async: false, forStream: true, CancellationToken.None);
        DbConnection connection = acquiring.GetAwaiter().GetResult();
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
                reader = ExecuteStreamReaderAsync(command, connection, async: false, CancellationToken.None).GetAwaiter().GetResult();
                Func<DbDataReader, T>? map = null;
                while (ReadStreamRowAsync(reader, connection, async: false, CancellationToken.None).GetAwaiter().GetResult())
                {
                    map ??= RowMapper<T>.Get(reader, command.CommandText);
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
                        CloseReaderAsync(command, reader, finished, async: false).GetAwaiter().GetResult();
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
            ReleaseAsync(connection, async: false).GetAwaiter().GetResult();
        }
    }

    private async IAsyncEnumerable<T> StreamAsyncIterator<T>(CommandRequest request, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        DbConnection connection = await AcquireAsync(async: true, forStream: true, cancellationToken).ConfigureAwait(false);
        try
        {
            await using DbCommand command = CreateCommand(connection, request);
            long started = Pool.Telemetry.CommandStarting(request.Sql);
            DbDataReader? reader = null;
            bool finished = false;
            bool failed = true;
            try
            {
                reader = await ExecuteStreamReaderAsync(command, connection, async: true, cancellationToken).ConfigureAwait(false);
                Func<DbDataReader, T>? map = null;
                while (await ReadStreamRowAsync(reader, connection, async: true, cancellationToken).ConfigureAwait(false))
                {
                    map ??= RowMapper<T>.Get(reader, command.CommandText);
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
                        await CloseReaderAsync(command, reader, finished, async: true).ConfigureAwait(false);
                }
                finally
                {
                    command.Parameters.Clear();
                    Pool.Telemetry.CommandCompleted(started, succeeded: !failed);
                }
            }
        }
        finally
        {
            await ReleaseAsync(connection, async: true).ConfigureAwait(false);
        }
    }

    // An iterator cannot catch around a yield, so the steps of a stream that talk to the server translate their own
    // failures here, the same way the buffered calls do (see Translate).
    private async ValueTask<DbDataReader> ExecuteStreamReaderAsync(DbCommand command, DbConnection connection, bool async, CancellationToken cancellationToken)
    {
        try
        {
            return await ExecuteReaderAsync(command, CommandBehavior.SingleResult, async, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception error) when (Translate(connection, error, cancellationToken) is { } translated)
        {
            throw translated;
        }
    }

    /// <summary>A read with failures translated; no allocation when the read completes at once.</summary>
    private ValueTask<bool> ReadStreamRowAsync(DbDataReader reader, DbConnection connection, bool async, CancellationToken cancellationToken)
    {
        ValueTask<bool> read;
        try
        {
            read = ReadAsync(reader, async, cancellationToken);
        }
        catch (Exception error) when (Translate(connection, error, cancellationToken) is { } translated)
        {
            throw translated;
        }

        return read.IsCompletedSuccessfully ? read : AwaitStreamRowAsync(read, connection, cancellationToken);
    }

    private async ValueTask<bool> AwaitStreamRowAsync(ValueTask<bool> read, DbConnection connection, CancellationToken cancellationToken)
    {
        try
        {
            return await read.ConfigureAwait(false);
        }
        catch (Exception error) when (Translate(connection, error, cancellationToken) is { } translated)
        {
            throw translated;
        }
    }

    private static ValueTask CloseReaderAsync(DbCommand command, DbDataReader reader, bool finished, bool async)
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
