using System.Data.Common;
using Orseis.Mapping;

namespace Orseis;

// The bodies the generated reads call (GridReader.Surface.*.cs, from tools/Orseis.SurfaceGen's table): each row kind's
// mapper handed to the one loop for every row (ReadRowsAsync) or the one for a row by a limit (ReadRowAsync).
public sealed partial class GridReader
{
    private ValueTask<List<T>> ReadListAsync<T>(bool async, CancellationToken cancellationToken) =>
        ReadRowsAsync(static (reader, sql, handlers) => RowMapper<T>.Get(reader, sql, handlers), async, cancellationToken);

    private ValueTask<T?> ReadRowAsync<T>(RowLimit limit, bool async, CancellationToken cancellationToken) =>
        ReadRowAsync(limit, static (reader, sql, handlers) => RowMapper<T>.Get(reader, sql, handlers), async, cancellationToken);

    private ValueTask<List<TResult>> ReadMultiAsync<TResult>(
        Type[] types, string splitOn, Func<Delegate[], Func<DbDataReader, TResult>> compose, bool async,
        CancellationToken cancellationToken) =>
        ReadRowsAsync((reader, _, handlers) => compose(MultiMapper.Get(reader, types, splitOn, handlers)), async, cancellationToken);

    private ValueTask<List<TResult>> ReadTypesAsync<TResult>(
        Type[] types, Func<object?[], TResult> map, string splitOn, bool async, CancellationToken cancellationToken)
    {
        (Type[] checkedTypes, RuntimeRowType[] rows) = MultiRowTypes.Check(types);
        return ReadMultiAsync(checkedTypes, splitOn, MultiRowTypes.Compose(rows, map), async, cancellationToken);
    }

    /// <summary>A row that Single or First guarantees, awaited without an async method of its own per call.</summary>
    private static async Task<T> NotNull<T>(ValueTask<T?> row) => (await row.ConfigureAwait(false))!;
}
