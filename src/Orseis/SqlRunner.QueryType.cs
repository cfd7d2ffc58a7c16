using System.Data.Common;
using Orseis.Execution;
using Orseis.Mapping;

namespace Orseis;

// Rows of a type known only at run time (Dapper's Query(Type, ...)): the same cached mappers as Query<T>, boxed for a
// value type (see RuntimeRowType).
public abstract partial class SqlRunner
{
    private static ValueTask<List<object?>> TypeListBody(
        DbCommand command, TypeHandlerSet? handlers, RuntimeRowType rowType, bool async, CancellationToken cancellationToken) =>
        ListBody(command, handlers, rowType, async, cancellationToken);

    private static ValueTask<object?> TypeRowBody(
        DbCommand command, TypeHandlerSet? handlers, RuntimeRowType rowType, RowLimit limit, bool async, CancellationToken ct) =>
        RowBody(command, handlers, rowType, limit, async, ct);
}
