using System.Data.Common;

namespace Orseis;

// Execute: a statement run for its rows affected, once or once per item of a sequence of argument objects. The public
// forms are generated (SqlRunner.Surface.Execute.cs); these are their bodies.
public abstract partial class SqlRunner
{
    /// <summary>
    /// Runs <paramref name="sql"/> once per item of an argument sequence on one connection, summing the rows affected
    /// (<see cref="ExecuteMany"/>).
    /// </summary>
    private static ValueTask<int> ExecuteManyBody(
        DbCommand command,
        string sql,
        List<object> items,
        Mapping.TypeHandlerSet? handlers,
        bool async,
        CancellationToken cancellationToken) =>
        ExecuteMany.RunAsync(command, sql, items, handlers, async, cancellationToken);

    private static async ValueTask<int> ExecuteBody(DbCommand command, bool async, CancellationToken cancellationToken) =>
        async ? await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false) : command.ExecuteNonQuery();
}
