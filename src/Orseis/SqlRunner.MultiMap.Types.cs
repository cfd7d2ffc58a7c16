using System.ComponentModel;
using Orseis.Mapping;

namespace Orseis;

// Multi-mapping by a Type array: any number of parts, each of a type known at run time, passed to the map function as
// an array (Dapper's Query(sql, Type[], Func<object[], TReturn>)). Splits as the generic forms do (see MultiMapper).
public abstract partial class SqlRunner
{
    /// <summary>
    /// Runs <paramref name="sql"/> and maps each row to the <paramref name="types"/>, one part per type, split at the columns <paramref
    /// name="splitOn"/> names, combined by <paramref name="map"/>; buffered in a list. The generic forms (<see
    /// cref="Query{T1, T2, TResult}(string, Func{T1, T2, TResult}, object?, string, TimeSpan?)"/> and on) for any number of types, or types
    /// known at run time.
    /// </summary>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="types">The type of each part, in column order (<see cref="object"/> for a <see cref="DynamicRow"/>).</param>
    /// <param name="map">Combines the parts of one row, given in the order of <paramref name="types"/> (value types boxed). A part after
    /// the first whose split column is NULL arrives as <see langword="null"/>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="splitOn">The column where each type after the first starts: one name for every split, or one per type after the first,
    /// comma-separated. Searched from the right, case-insensitively. Default <c>"Id"</c>.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>What <paramref name="map"/> returned for each row, in order.</returns>
    /// <exception cref="ArgumentException"><paramref name="types"/> is empty or holds a type no row can be (the message names it), or
    /// <paramref name="splitOn"/> names the wrong number of columns.</exception>
    /// <exception cref="MappingException">A split column is not in the result (the message lists the columns), or a part cannot be
    /// mapped.</exception>
    public List<TResult> Query<TResult>(
        string sql, Type[] types, Func<object?[], TResult> map, object? args = null, string splitOn = "Id", TimeSpan? timeout = null)
    {
        (Type[] checkedTypes, RuntimeRowType[] rows) = MultiRowTypes.Check(types);
        return MultiMap(sql, args, timeout, checkedTypes, splitOn, MultiRowTypes.Compose(rows, map));
    }

    /// <inheritdoc cref="Query{TResult}(string, Type[], Func{object?[], TResult}, object?, string, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="types">The type of each part, in column order.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="splitOn">The column where each type after the first starts (see the sync form).</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<List<TResult>> QueryAsync<TResult>(
        string sql,
        Type[] types,
        Func<object?[], TResult> map,
        object? args = null,
        string splitOn = "Id",
        TimeSpan? timeout = null,
        CancellationToken cancellationToken = default)
    {
        (Type[] checkedTypes, RuntimeRowType[] rows) = MultiRowTypes.Check(types);
        return MultiMapAsync(sql, args, timeout, checkedTypes, splitOn, MultiRowTypes.Compose(rows, map), cancellationToken);
    }

    /// <summary>Like <see cref="Query{TResult}(string, Type[], Func{object?[], TResult}, object?, string, TimeSpan?)"/>, with the holes of
    /// <paramref name="sql"/> sent as parameters.</summary>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="types">The type of each part, in column order.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public List<TResult> Query<TResult>(
        SqlInterpolatedStringHandler sql, Type[] types, Func<object?[], TResult> map, string splitOn = "Id", TimeSpan? timeout = null) =>
        Query(sql.Text, types, map, sql.Parameters, splitOn, timeout);

    /// <summary>Like <see
    /// cref="QueryAsync{TResult}(string, Type[], Func{object?[], TResult}, object?, string, TimeSpan?, CancellationToken)"/>, with the
    /// holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="types">The type of each part, in column order.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public Task<List<TResult>> QueryAsync<TResult>(
        SqlInterpolatedStringHandler sql, Type[] types, Func<object?[], TResult> map, string splitOn = "Id", TimeSpan? timeout = null,
        CancellationToken cancellationToken = default) =>
        QueryAsync(sql.Text, types, map, sql.Parameters, splitOn, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see
    /// cref="Query{TResult}(string, Type[], Func{object?[], TResult}, object?, string, TimeSpan?)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public List<TResult> Query<TResult>(
        SqlInterpolatedStringHandler sql, Type[] types, Func<object?[], TResult> map, object? args, string splitOn = "Id",
        TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see
    /// cref="QueryAsync{TResult}(string, Type[], Func{object?[], TResult}, object?, string, TimeSpan?, CancellationToken)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<List<TResult>> QueryAsync<TResult>(
        SqlInterpolatedStringHandler sql, Type[] types, Func<object?[], TResult> map, object? args, string splitOn = "Id",
        TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);
}
