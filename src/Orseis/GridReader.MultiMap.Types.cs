using Orseis.Execution;
using Orseis.Mapping;

namespace Orseis;

// Multi-mapping of the current result set by a Type array, as SqlRunner.Query<TResult>(sql, types, map) does.
public sealed partial class GridReader
{
    /// <summary>Maps every row of the current result set to the <paramref name="types"/>, combined by <paramref name="map"/> (as <see
    /// cref="SqlRunner.Query{TResult}(string, Type[], Func{object?[], TResult}, object?, string, TimeSpan?)"/> does), and moves to the
    /// next.</summary>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="types">The type of each part, in column order (<see cref="object"/> for a <see cref="DynamicRow"/>).</param>
    /// <param name="map">Combines the parts of one row, given in the order of <paramref name="types"/>.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public List<TResult> Read<TResult>(Type[] types, Func<object?[], TResult> map, string splitOn = "Id") =>
        SyncPath.Done(ReadTypesAsync(types, map, splitOn, async: false, CancellationToken.None));

    /// <inheritdoc cref="Read{TResult}(Type[], Func{object?[], TResult}, string)"/>
    /// <param name="types">The type of each part, in column order.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <param name="cancellationToken">Cancels the read.</param>
    public Task<List<TResult>> ReadAsync<TResult>(
        Type[] types, Func<object?[], TResult> map, string splitOn = "Id", CancellationToken cancellationToken = default) =>
        ReadTypesAsync(types, map, splitOn, async: true, cancellationToken).AsTask();

    private ValueTask<List<TResult>> ReadTypesAsync<TResult>(
        Type[] types, Func<object?[], TResult> map, string splitOn, bool async, CancellationToken cancellationToken)
    {
        (Type[] checkedTypes, RuntimeRowType[] rows) = MultiRowTypes.Check(types);
        return ReadMultiAsync(checkedTypes, splitOn, MultiRowTypes.Compose(rows, map), async, cancellationToken);
    }
}
