using Orseis.Execution;
using Orseis.Mapping;

namespace Orseis;

// Multi-mapping of the current result set to 5, 6 and 7 types, as SqlRunner.Query<T1, …, T7, TResult> does.
public sealed partial class GridReader
{
    /// <summary>Maps every row of the current result set to 5 types combined by <paramref name="map"/> (as <c>SqlRunner.Query&lt;T1, T2,
    /// T3, T4, T5, TResult&gt;</c> does)
    /// and moves to the next.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="T4">The type of the row's fourth part.</typeparam>
    /// <typeparam name="T5">The type of the row's fifth part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public List<TResult> Read<T1, T2, T3, T4, T5, TResult>(Func<T1, T2, T3, T4, T5, TResult> map, string splitOn = "Id") =>
        SyncPath.Done(
            ReadMultiAsync(
                MultiTypes<T1, T2, T3, T4, T5>.Types, splitOn, MultiRow.Compose(map), async: false, CancellationToken.None));

    /// <inheritdoc cref="Read{T1, T2, T3, T4, T5, TResult}(Func{T1, T2, T3, T4, T5, TResult}, string)"/>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <param name="cancellationToken">Cancels the read.</param>
    public Task<List<TResult>> ReadAsync<T1, T2, T3, T4, T5, TResult>(
        Func<T1, T2, T3, T4, T5, TResult> map, string splitOn = "Id", CancellationToken cancellationToken = default) =>
        ReadMultiAsync(MultiTypes<T1, T2, T3, T4, T5>.Types, splitOn, MultiRow.Compose(map), async: true, cancellationToken)
            .AsTask();

    /// <summary>Maps every row of the current result set to 6 types combined by <paramref name="map"/> (as <c>SqlRunner.Query&lt;T1, T2,
    /// T3, T4, T5, T6, TResult&gt;</c>
    /// does) and moves to the next.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="T4">The type of the row's fourth part.</typeparam>
    /// <typeparam name="T5">The type of the row's fifth part.</typeparam>
    /// <typeparam name="T6">The type of the row's sixth part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public List<TResult> Read<T1, T2, T3, T4, T5, T6, TResult>(Func<T1, T2, T3, T4, T5, T6, TResult> map, string splitOn = "Id") =>
        SyncPath.Done(
            ReadMultiAsync(
                MultiTypes<T1, T2, T3, T4, T5, T6>.Types, splitOn, MultiRow.Compose(map), async: false, CancellationToken.None));

    /// <inheritdoc cref="Read{T1, T2, T3, T4, T5, T6, TResult}(Func{T1, T2, T3, T4, T5, T6, TResult}, string)"/>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <param name="cancellationToken">Cancels the read.</param>
    public Task<List<TResult>> ReadAsync<T1, T2, T3, T4, T5, T6, TResult>(
        Func<T1, T2, T3, T4, T5, T6, TResult> map, string splitOn = "Id", CancellationToken cancellationToken = default) =>
        ReadMultiAsync(MultiTypes<T1, T2, T3, T4, T5, T6>.Types, splitOn, MultiRow.Compose(map), async: true, cancellationToken)
            .AsTask();

    /// <summary>Maps every row of the current result set to 7 types combined by <paramref name="map"/> (as <c>SqlRunner.Query&lt;T1, T2,
    /// T3, T4, T5, T6, T7, TResult&gt;</c>
    /// does) and moves to the next.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="T4">The type of the row's fourth part.</typeparam>
    /// <typeparam name="T5">The type of the row's fifth part.</typeparam>
    /// <typeparam name="T6">The type of the row's sixth part.</typeparam>
    /// <typeparam name="T7">The type of the row's seventh part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public List<TResult> Read<T1, T2, T3, T4, T5, T6, T7, TResult>(Func<T1, T2, T3, T4, T5, T6, T7, TResult> map, string splitOn = "Id") =>
        SyncPath.Done(
            ReadMultiAsync(
                MultiTypes<T1, T2, T3, T4, T5, T6, T7>.Types, splitOn, MultiRow.Compose(map), async: false, CancellationToken.None));

    /// <inheritdoc cref="Read{T1, T2, T3, T4, T5, T6, T7, TResult}(Func{T1, T2, T3, T4, T5, T6, T7, TResult}, string)"/>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts; default <c>"Id"</c>.</param>
    /// <param name="cancellationToken">Cancels the read.</param>
    public Task<List<TResult>> ReadAsync<T1, T2, T3, T4, T5, T6, T7, TResult>(
        Func<T1, T2, T3, T4, T5, T6, T7, TResult> map, string splitOn = "Id", CancellationToken cancellationToken = default) =>
        ReadMultiAsync(MultiTypes<T1, T2, T3, T4, T5, T6, T7>.Types, splitOn, MultiRow.Compose(map), async: true, cancellationToken)
            .AsTask();

}
