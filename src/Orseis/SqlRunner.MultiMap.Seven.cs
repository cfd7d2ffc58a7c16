using System.ComponentModel;
using Orseis.Mapping;

namespace Orseis;

// Multi-mapping to 7 types (Dapper's limit): as SqlRunner.MultiMap.Five.cs does for 5.
public abstract partial class SqlRunner
{
    /// <summary>
    /// Runs <paramref name="sql"/> and maps each row to 7 types, split at the columns <paramref name="splitOn"/> names, combined by
    /// <paramref name="map"/>; buffered in a list (as <see
    /// cref="Query{T1, T2, TResult}(string, Func{T1, T2, TResult}, object?, string, TimeSpan?)"/> does for 2).
    /// </summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="T4">The type of the row's fourth part.</typeparam>
    /// <typeparam name="T5">The type of the row's fifth part.</typeparam>
    /// <typeparam name="T6">The type of the row's sixth part.</typeparam>
    /// <typeparam name="T7">The type of the row's seventh part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="map">Combines the parts of one row. A part after the first whose split column is NULL arrives as <see
    /// langword="default"/>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="splitOn">The column where each type after the first starts: one name for every split, or one per type after the first,
    /// comma-separated. Searched from the right, case-insensitively. Default <c>"Id"</c>.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>What <paramref name="map"/> returned for each row, in order.</returns>
    /// <exception cref="MappingException">A split column is not in the result (the message lists the columns), or a part cannot be
    /// mapped.</exception>
    public List<TResult> Query<T1, T2, T3, T4, T5, T6, T7, TResult>(
        string sql, Func<T1, T2, T3, T4, T5, T6, T7, TResult> map, object? args = null, string splitOn = "Id", TimeSpan? timeout = null) =>
        MultiMap(sql, args, timeout, MultiTypes<T1, T2, T3, T4, T5, T6, T7>.Types, splitOn, MultiRow.Compose(map));

    /// <inheritdoc
    /// cref="Query{T1, T2, T3, T4, T5, T6, T7, TResult}(string, Func{T1, T2, T3, T4, T5, T6, T7, TResult}, object?, string, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="splitOn">The column where each type after the first starts (see the sync form).</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<List<TResult>> QueryAsync<T1, T2, T3, T4, T5, T6, T7, TResult>(
        string sql,
        Func<T1, T2, T3, T4, T5, T6, T7, TResult> map,
        object? args = null,
        string splitOn = "Id",
        TimeSpan? timeout = null,
        CancellationToken cancellationToken = default) =>
        MultiMapAsync(sql, args, timeout, MultiTypes<T1, T2, T3, T4, T5, T6, T7>.Types, splitOn, MultiRow.Compose(map), cancellationToken);

    /// <summary>Like <c>Query&lt;T1, T2, T3, T4, T5, T6, T7, TResult&gt;</c>,
    /// with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="T4">The type of the row's fourth part.</typeparam>
    /// <typeparam name="T5">The type of the row's fifth part.</typeparam>
    /// <typeparam name="T6">The type of the row's sixth part.</typeparam>
    /// <typeparam name="T7">The type of the row's seventh part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public List<TResult> Query<T1, T2, T3, T4, T5, T6, T7, TResult>(
        SqlInterpolatedStringHandler sql, Func<T1, T2, T3, T4, T5, T6, T7, TResult> map, string splitOn = "Id", TimeSpan? timeout = null) =>
        Query(sql.Text, map, sql.Parameters, splitOn, timeout);

    /// <summary>Like <c>QueryAsync&lt;T1, T2, T3, T4, T5, T6, T7, TResult&gt;</c>,
    /// with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="T4">The type of the row's fourth part.</typeparam>
    /// <typeparam name="T5">The type of the row's fifth part.</typeparam>
    /// <typeparam name="T6">The type of the row's sixth part.</typeparam>
    /// <typeparam name="T7">The type of the row's seventh part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public Task<List<TResult>> QueryAsync<T1, T2, T3, T4, T5, T6, T7, TResult>(
        SqlInterpolatedStringHandler sql, Func<T1, T2, T3, T4, T5, T6, T7, TResult> map, string splitOn = "Id", TimeSpan? timeout = null,
        CancellationToken cancellationToken = default) =>
        QueryAsync(sql.Text, map, sql.Parameters, splitOn, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <c>Query&lt;T1, T2, T3, T4, T5, T6, T7, TResult&gt;</c>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public List<TResult> Query<T1, T2, T3, T4, T5, T6, T7, TResult>(
        SqlInterpolatedStringHandler sql, Func<T1, T2, T3, T4, T5, T6, T7, TResult> map, object? args, string splitOn = "Id",
        TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <c>QueryAsync&lt;T1, T2, T3, T4, T5, T6, T7, TResult&gt;</c>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<List<TResult>> QueryAsync<T1, T2, T3, T4, T5, T6, T7, TResult>(
        SqlInterpolatedStringHandler sql, Func<T1, T2, T3, T4, T5, T6, T7, TResult> map, object? args, string splitOn = "Id",
        TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);
}
