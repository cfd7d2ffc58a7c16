using System.Data.Common;
using Orseis.Execution;

namespace Orseis;

// Execute: a statement run for its rows affected, once or once per item of a sequence of argument objects.
public abstract partial class SqlRunner
{
    /// <summary>
    /// Runs <paramref name="sql"/> and returns the number of rows it affected. Given a sequence of argument objects
    /// (<c>new[] { new { id = 1 }, new { id = 2 } }</c>), runs it once per item, in order, on one connection (inside the
    /// session's transaction, if any), and returns the rows affected in all.
    /// </summary>
    /// <remarks>
    /// Where the provider supports <see cref="DbBatch"/> (MySqlConnector, Npgsql, SqlClient), the items of a sequence
    /// are sent in batches of up to 1000 items and 2000 parameters, each sent as one; SQL containing a semicolon and a
    /// <see cref="ParameterBag"/> with outputs or a procedure run one command per item, as every item does on other
    /// providers. When an item fails, the provider's exception is thrown with the item's index in
    /// <see cref="Exception.Data"/> under <c>"Orseis.ItemIndex"</c> (in a batch, only where the provider names the
    /// failed command), and a failed batch's first item and size under <c>"Orseis.BatchStart"</c> and
    /// <c>"Orseis.BatchSize"</c>.
    /// </remarks>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">
    /// The parameters: an object whose properties are named after them, a dictionary, or <see cref="DbParameter"/>s; or a
    /// sequence of such objects.
    /// </param>
    /// <param name="timeout">
    /// The command timeout for this call (for each statement or batch of a sequence); null for the database's default.
    /// </param>
    /// <returns>The rows affected, as the provider counts them.</returns>
    public int Execute(string sql, object? args = null, TimeSpan? timeout = null)
    {
        if (ArgumentSequence.Items(args) is not { } items)
            return Run(new CommandRequest(sql, args, timeout), static (command, _, async, ct) => ExecuteBody(command, async, ct));
        if (items.Count == 0)
            return 0;
        CallBody<int> each = (command, handlers, async, ct) => ExecuteManyBody(command, sql, items, handlers, async, ct);
        return Run(new CommandRequest(sql, null, timeout), each);
    }

    /// <inheritdoc cref="Execute(string, object?, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">
    /// The parameters: an object whose properties are named after them, a dictionary, or <see cref="DbParameter"/>s; or a
    /// sequence of such objects.
    /// </param>
    /// <param name="timeout">
    /// The command timeout for this call (for each statement or batch of a sequence); null for the database's default.
    /// </param>
    /// <param name="cancellationToken">Cancels the call; a sequence stops before its next item or batch.</param>
    public Task<int> ExecuteAsync(
        string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default)
    {
        if (ArgumentSequence.Items(args) is not { } items)
        {
            CallBody<int> once = static (command, _, async, ct) => ExecuteBody(command, async, ct);
            return RunAsync(new CommandRequest(sql, args, timeout), once, async: true, cancellationToken).AsTask();
        }

        if (items.Count == 0)
            return Task.FromResult(0);
        CallBody<int> each = (command, handlers, async, ct) => ExecuteManyBody(command, sql, items, handlers, async, ct);
        return RunAsync(new CommandRequest(sql, null, timeout), each, async: true, cancellationToken).AsTask();
    }

    /// <summary>
    /// Runs <paramref name="sql"/> once per item of an argument sequence on one connection, summing the rows affected
    /// (<see cref="Execution.ExecuteMany"/>).
    /// </summary>
    private static ValueTask<int> ExecuteManyBody(
        DbCommand command,
        string sql,
        List<object> items,
        Mapping.TypeHandlerSet? handlers,
        bool async,
        CancellationToken cancellationToken) =>
        Execution.ExecuteMany.RunAsync(command, sql, items, handlers, async, cancellationToken);

    private static async ValueTask<int> ExecuteBody(DbCommand command, bool async, CancellationToken cancellationToken) =>
        async ? await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false) : command.ExecuteNonQuery();
}
