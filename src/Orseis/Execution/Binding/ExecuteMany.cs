using System.Data.Common;
using System.Diagnostics;
using Orseis.Diagnostics;
using Orseis.Mapping;

namespace Orseis.Execution.Binding;

/// <summary>
/// Dapper's execute-many: one statement run for each item of an argument sequence, on one connection. Where the
/// provider has <see cref="DbBatch"/> (<see cref="DbConnection.CanCreateBatch"/>: MySqlConnector, Npgsql, SqlClient)
/// the items go in chunks of one batch each, one round trip per chunk; elsewhere (SQLite, MySql.Data), and for items
/// that need a command of their own, one command per item.
/// </summary>
internal static class ExecuteMany
{
    /// <summary>The key of <see cref="Exception.Data"/> under which a failure of an item carries the item's index.</summary>
    public const string ItemIndexKey = "Orseis.ItemIndex";

    /// <summary>
    /// The key of <see cref="Exception.Data"/> under which a failed batch carries the index of its first item.
    /// </summary>
    public const string BatchStartKey = "Orseis.BatchStart";

    /// <summary>The key of <see cref="Exception.Data"/> under which a failed batch carries how many items it held.</summary>
    public const string BatchSizeKey = "Orseis.BatchSize";

    /// <summary>The most items one batch holds.</summary>
    internal const int MaxItemsPerBatch = 1000;

    /// <summary>
    /// The most parameters one batch holds (an item with more goes alone): SQL Server takes at most 2100 parameters
    /// in a request, and a bound on the others keeps one batch's memory and packet size in check.
    /// </summary>
    internal const int MaxParametersPerBatch = 2000;

    /// <summary>
    /// Runs <paramref name="sql"/> once for each of <paramref name="items"/> on the connection of <paramref name="command"/>.
    /// </summary>
    /// <param name="command">The call's command: its connection, transaction and timeout serve every item.</param>
    /// <param name="sql">The SQL as the caller wrote it.</param>
    /// <param name="items">The argument objects, one per run; not empty.</param>
    /// <param name="handlers">The database's type handlers; null when it has none.</param>
    /// <param name="async">Whether to run asynchronously.</param>
    /// <param name="cancellationToken">Cancels the call; checked before each item or batch.</param>
    /// <returns>The rows affected in all.</returns>
    public static ValueTask<int> RunAsync(
        DbCommand command, string sql, List<object> items, TypeHandlerSet? handlers, bool async, CancellationToken cancellationToken)
    {
        // The call's span covers every item: OpenTelemetry's db.operation.batch.size says how many (from 2 on).
        if (items.Count > 1 && OrseisActivitySource.Tracing && Activity.Current is { } span && span.Source == OrseisActivitySource.Source)
            span.SetTag("db.operation.batch.size", items.Count);
        return items.Count > 1 && command.Connection is { CanCreateBatch: true } connection
            && Batchable(sql, items, ProviderTraits.For(connection.GetType()).Dialect)
            ? BatchedAsync(connection, command, sql, items, handlers, async, cancellationToken)
            : OneByOneAsync(command, sql, items, handlers, async, cancellationToken);
    }

    /// <summary>
    /// False when a batch could run the items differently from one command each: SQL with a semicolon outside its string
    /// literals, quoted names and comments (<see cref="SqlLexer"/>: several statements, or one terminated: providers take a
    /// batch command as exactly one statement, and Npgsql refuses more), or a <see cref="ParameterBag"/> with outputs or a
    /// procedure's command type (outputs are read back per
    /// command, and providers differ on procedures in a batch).
    /// </summary>
    internal static bool Batchable(string sql, List<object> items, SqlDialect dialect)
    {
        int at = sql.IndexOf(';', StringComparison.Ordinal) < 0 ? sql.Length : 0;
        while (SqlLexer.NextSpecial(sql, ref at, dialect, out SqlToken token))
        {
            if (token.Is(sql, ';'))
                return false;
        }

        foreach (object item in items)
        {
            if (item is ParameterBag { NeedsOwnCommand: true })
                return false;
        }

        return true;
    }

    private static async ValueTask<int> OneByOneAsync(
        DbCommand command, string sql, List<object> items, TypeHandlerSet? handlers, bool async, CancellationToken cancellationToken)
    {
        int total = 0;
        for (int index = 0; index < items.Count; index++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            object item = items[index];
            try
            {
                command.Parameters.Clear();
                command.CommandText = ParameterBinder.Bind(command, sql, item, handlers);
                total += async ? await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false) : command.ExecuteNonQuery();
                (item as ParameterBag)?.ReadBack();
                ParameterBag.ThrowIfOutputFailed(item); // an output its member cannot take stops the sequence at this item
            }
            catch (Exception error) when (MarkItem(error, index))
            {
                throw; // not reached: the filter only marks
            }
        }

        return total;
    }

    private static async ValueTask<int> BatchedAsync(
        DbConnection connection,
        DbCommand command,
        string sql,
        List<object> items,
        TypeHandlerSet? handlers,
        bool async,
        CancellationToken cancellationToken)
    {
        int total = 0;
        int start = 0;
        Bound? carried = null; // an item bound for a batch that had no room left for its parameters
        while (start < items.Count)
        {
            cancellationToken.ThrowIfCancellationRequested();
            DbBatch batch = connection.CreateBatch();
            try
            {
                batch.Transaction = command.Transaction;
                batch.Timeout = command.CommandTimeout;
                int parameters = 0;
                int end = start;
                while (end < items.Count && end - start < MaxItemsPerBatch)
                {
                    Bound bound = carried ?? Bind(command, sql, items[end], end, handlers);
                    carried = null;
                    if (end > start && parameters + bound.Parameters.Length > MaxParametersPerBatch)
                    {
                        carried = bound;
                        break;
                    }

                    DbBatchCommand batchCommand = batch.CreateBatchCommand();
                    batchCommand.CommandText = bound.Sql;
                    batchCommand.CommandType = command.CommandType;
                    foreach (DbParameter parameter in bound.Parameters)
                        batchCommand.Parameters.Add(parameter);
                    batch.BatchCommands.Add(batchCommand);
                    parameters += bound.Parameters.Length;
                    end++;
                }

                try
                {
                    // The batch's own total: MySqlConnector leaves each batch command's RecordsAffected at 0.
                    total += async ? await batch.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false) : batch.ExecuteNonQuery();
                }
                catch (Exception error) when (MarkBatch(error, batch, start))
                {
                    throw; // not reached: the filter only marks
                }

                for (int i = start; i < end; i++)
                {
                    (items[i] as ParameterBag)?.ReadBack();
                    ParameterBag.ThrowIfOutputFailed(items[i]);
                }

                start = end;
            }
            finally
            {
                if (async)
                    await batch.DisposeAsync().ConfigureAwait(false);
                else
                    batch.Dispose();
            }
        }

        return total;
    }

    /// <summary>
    /// Binds one item through the call's command (so it gets exactly the parameters, list expansion and type handling
    /// of a single call) and takes the parameters off it for a batch command.
    /// </summary>
    private static Bound Bind(DbCommand command, string sql, object item, int index, TypeHandlerSet? handlers)
    {
        command.Parameters.Clear();
        try
        {
            string text = ParameterBinder.Bind(command, sql, item, handlers);
            var parameters = new DbParameter[command.Parameters.Count];
            for (int i = 0; i < parameters.Length; i++)
                parameters[i] = command.Parameters[i]; // not CopyTo: providers copy into arrays of their own parameter type
            command.Parameters.Clear(); // a parameter belongs to one collection at a time (SqlClient, Npgsql check)
            return new Bound(text, parameters);
        }
        catch (Exception error) when (MarkItem(error, index))
        {
            throw; // not reached: the filter only marks
        }
    }

    /// <summary>
    /// Records in <paramref name="error"/> which item failed; false, so a filter that calls it lets the error pass untouched.
    /// </summary>
    private static bool MarkItem(Exception error, int index)
    {
        if (error is not OperationCanceledException)
            error.Data[ItemIndexKey] = index;
        return false;
    }

    /// <summary>
    /// Records which items the failed batch held and, where the provider names the batch command that failed
    /// (<see cref="DbException.BatchCommand"/>: SqlClient, and Npgsql with <c>Include Failed Batched Command=true</c>), the
    /// failed item.
    /// </summary>
    private static bool MarkBatch(Exception error, DbBatch batch, int start)
    {
        if (error is OperationCanceledException)
            return false;
        error.Data[BatchStartKey] = start;
        error.Data[BatchSizeKey] = batch.BatchCommands.Count;
        if (error is DbException { BatchCommand: { } failed })
        {
            for (int i = 0; i < batch.BatchCommands.Count; i++)
            {
                if (ReferenceEquals(batch.BatchCommands[i], failed))
                    return MarkItem(error, start + i);
            }
        }

        return false;
    }

    private sealed record Bound(string Sql, DbParameter[] Parameters);
}
