using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>
/// Where a buffered read gets its row mapper when the row type is not a compile-time <c>T</c>: the one reading loop of
/// <c>SqlRunner.ListBody</c> and <c>RowBody</c> asks it, and asks <see cref="RowMapper{T}"/> itself when none is given
/// (<c>Query&lt;T&gt;</c>, whose path is then exactly what it was before the loop was shared: one null check more).
/// </summary>
/// <typeparam name="TRow">The row the mapper makes.</typeparam>
/// <remarks>
/// An interface on a class, not a struct type argument: a struct generic over a reference type runs as shared generic
/// code, and <c>QuerySingle</c> through such a source counted about 170 instructions more per call on SQLite
/// (callgrind) than through this one.
/// </remarks>
internal interface IRowSource<TRow>
{
    /// <summary>The mapper for the reader's current result set.</summary>
    Func<DbDataReader, TRow> Mapper(DbDataReader reader, string sql, TypeHandlerSet? handlers);
}
