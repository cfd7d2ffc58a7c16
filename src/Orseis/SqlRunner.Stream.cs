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
            try
            {
                reader = ExecuteReaderAsync(command, CommandBehavior.SingleResult, async: false, CancellationToken.None).GetAwaiter().GetResult();
                Func<DbDataReader, T>? map = null;
                while (reader.Read())
                {
                    map ??= RowMapper<T>.Get(reader, command.CommandText);
                    yield return map(reader);
                }

                finished = true;
            }
            finally
            {
                if (reader is not null)
                    CloseEarly(command, reader, finished);
                command.Parameters.Clear();
                Pool.Telemetry.CommandCompleted(started, null);
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
            try
            {
                reader = await Cancellation.AwaitAsync(command.ExecuteReaderAsync(CommandBehavior.SingleResult, cancellationToken), cancellationToken).ConfigureAwait(false);
                Func<DbDataReader, T>? map = null;
                while (await Cancellation.ReadAsync(reader, cancellationToken).ConfigureAwait(false))
                {
                    map ??= RowMapper<T>.Get(reader, command.CommandText);
                    yield return map(reader);
                }

                finished = true;
            }
            finally
            {
                if (reader is not null)
                {
                    if (!finished)
                        TryCancel(command);
                    await reader.DisposeAsync().ConfigureAwait(false);
                }

                command.Parameters.Clear();
                Pool.Telemetry.CommandCompleted(started, null);
            }
        }
        finally
        {
            await ReleaseAsync(connection, async: true).ConfigureAwait(false);
        }
    }

    private static void CloseEarly(DbCommand command, DbDataReader reader, bool finished)
    {
        if (!finished)
            TryCancel(command);
        reader.Dispose();
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
