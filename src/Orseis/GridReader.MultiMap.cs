using System.Data.Common;
using Orseis.Execution;
using Orseis.Mapping;

namespace Orseis;

// Multi-mapping of the current result set: the rows split into parts as SqlRunner.Query<T1, T2, TResult> does.
public sealed partial class GridReader
{
    /// <summary>Maps every row of the current result set to 2 types combined by <paramref name="map"/> (as
    /// <see cref="SqlRunner.Query{T1, T2, TResult}(string, Func{T1, T2, TResult}, object?, string, TimeSpan?)"/> does) and moves to the
    /// next.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public List<TResult> Read<T1, T2, TResult>(Func<T1, T2, TResult> map, string splitOn = "Id") =>
        SyncPath.Done(ReadMultiAsync(MultiTypes<T1, T2>.Types, splitOn, MultiRow.Compose(map), async: false, CancellationToken.None));

    /// <inheritdoc cref="Read{T1, T2, TResult}(Func{T1, T2, TResult}, string)"/>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <param name="cancellationToken">Cancels the read.</param>
    public Task<List<TResult>> ReadAsync<T1, T2, TResult>(Func<T1, T2, TResult> map, string splitOn = "Id", CancellationToken cancellationToken = default) =>
        ReadMultiAsync(MultiTypes<T1, T2>.Types, splitOn, MultiRow.Compose(map), async: true, cancellationToken).AsTask();

    /// <summary>Maps every row of the current result set to 3 types combined by <paramref name="map"/> (as
    /// <see cref="SqlRunner.Query{T1, T2, T3, TResult}(string, Func{T1, T2, T3, TResult}, object?, string, TimeSpan?)"/> does) and moves to
    /// the next.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public List<TResult> Read<T1, T2, T3, TResult>(Func<T1, T2, T3, TResult> map, string splitOn = "Id") =>
        SyncPath.Done(ReadMultiAsync(MultiTypes<T1, T2, T3>.Types, splitOn, MultiRow.Compose(map), async: false, CancellationToken.None));

    /// <inheritdoc cref="Read{T1, T2, T3, TResult}(Func{T1, T2, T3, TResult}, string)"/>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <param name="cancellationToken">Cancels the read.</param>
    public Task<List<TResult>> ReadAsync<T1, T2, T3, TResult>(Func<T1, T2, T3, TResult> map, string splitOn = "Id", CancellationToken cancellationToken = default) =>
        ReadMultiAsync(MultiTypes<T1, T2, T3>.Types, splitOn, MultiRow.Compose(map), async: true, cancellationToken).AsTask();

    /// <summary>Maps every row of the current result set to 4 types combined by <paramref name="map"/> (as
    /// <see cref="SqlRunner.Query{T1, T2, T3, T4, TResult}(string, Func{T1, T2, T3, T4, TResult}, object?, string, TimeSpan?)"/> does) and
    /// moves to the next.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="T4">The type of the row's fourth part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public List<TResult> Read<T1, T2, T3, T4, TResult>(Func<T1, T2, T3, T4, TResult> map, string splitOn = "Id") =>
        SyncPath.Done(ReadMultiAsync(MultiTypes<T1, T2, T3, T4>.Types, splitOn, MultiRow.Compose(map), async: false, CancellationToken.None));

    /// <inheritdoc cref="Read{T1, T2, T3, T4, TResult}(Func{T1, T2, T3, T4, TResult}, string)"/>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <param name="cancellationToken">Cancels the read.</param>
    public Task<List<TResult>> ReadAsync<T1, T2, T3, T4, TResult>(Func<T1, T2, T3, T4, TResult> map, string splitOn = "Id", CancellationToken cancellationToken = default) =>
        ReadMultiAsync(MultiTypes<T1, T2, T3, T4>.Types, splitOn, MultiRow.Compose(map), async: true, cancellationToken).AsTask();

    private ValueTask<List<TResult>> ReadMultiAsync<TResult>(
        Type[] types, string splitOn, Func<Delegate[], Func<DbDataReader, TResult>> compose, bool async, CancellationToken cancellationToken) =>
        ReadRowsAsync((reader, _, handlers) => compose(MultiMapper.Get(reader, types, splitOn, handlers)), async, cancellationToken);
}
