using System.ComponentModel;

namespace Orseis;

// The interpolated-string forms of multi-mapping, each with its ORSEIS001 guard (see SqlRunner.InterpolatedWithArgs.cs).
public abstract partial class SqlRunner
{
    /// <summary>Like <see cref="Query{T1, T2, TResult}(string, Func{T1, T2, TResult}, object?, string, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public List<TResult> Query<T1, T2, TResult>(SqlInterpolatedStringHandler sql, Func<T1, T2, TResult> map, string splitOn = "Id", TimeSpan? timeout = null) =>
        Query(sql.Text, map, sql.Parameters, splitOn, timeout);

    /// <summary>Like <see cref="QueryAsync{T1, T2, TResult}(string, Func{T1, T2, TResult}, object?, string, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public Task<List<TResult>> QueryAsync<T1, T2, TResult>(
        SqlInterpolatedStringHandler sql, Func<T1, T2, TResult> map, string splitOn = "Id", TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryAsync(sql.Text, map, sql.Parameters, splitOn, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="Query{T1, T2, TResult}(string, Func{T1, T2, TResult}, object?, string, TimeSpan?)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public List<TResult> Query<T1, T2, TResult>(SqlInterpolatedStringHandler sql, Func<T1, T2, TResult> map, object? args, string splitOn = "Id", TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="QueryAsync{T1, T2, TResult}(string, Func{T1, T2, TResult}, object?, string, TimeSpan?, CancellationToken)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<List<TResult>> QueryAsync<T1, T2, TResult>(
        
        SqlInterpolatedStringHandler sql, Func<T1, T2, TResult> map, object? args, string splitOn = "Id", TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Like <see cref="Query{T1, T2, T3, TResult}(string, Func{T1, T2, T3, TResult}, object?, string, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public List<TResult> Query<T1, T2, T3, TResult>(SqlInterpolatedStringHandler sql, Func<T1, T2, T3, TResult> map, string splitOn = "Id", TimeSpan? timeout = null) =>
        Query(sql.Text, map, sql.Parameters, splitOn, timeout);

    /// <summary>Like <see cref="QueryAsync{T1, T2, T3, TResult}(string, Func{T1, T2, T3, TResult}, object?, string, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public Task<List<TResult>> QueryAsync<T1, T2, T3, TResult>(
        SqlInterpolatedStringHandler sql, Func<T1, T2, T3, TResult> map, string splitOn = "Id", TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryAsync(sql.Text, map, sql.Parameters, splitOn, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="Query{T1, T2, T3, TResult}(string, Func{T1, T2, T3, TResult}, object?, string, TimeSpan?)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public List<TResult> Query<T1, T2, T3, TResult>(SqlInterpolatedStringHandler sql, Func<T1, T2, T3, TResult> map, object? args, string splitOn = "Id", TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="QueryAsync{T1, T2, T3, TResult}(string, Func{T1, T2, T3, TResult}, object?, string, TimeSpan?, CancellationToken)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<List<TResult>> QueryAsync<T1, T2, T3, TResult>(
        
        SqlInterpolatedStringHandler sql, Func<T1, T2, T3, TResult> map, object? args, string splitOn = "Id", TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Like <see cref="Query{T1, T2, T3, T4, TResult}(string, Func{T1, T2, T3, T4, TResult}, object?, string, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="T4">The type of the row's fourth part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public List<TResult> Query<T1, T2, T3, T4, TResult>(SqlInterpolatedStringHandler sql, Func<T1, T2, T3, T4, TResult> map, string splitOn = "Id", TimeSpan? timeout = null) =>
        Query(sql.Text, map, sql.Parameters, splitOn, timeout);

    /// <summary>Like <see cref="QueryAsync{T1, T2, T3, T4, TResult}(string, Func{T1, T2, T3, T4, TResult}, object?, string, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="T4">The type of the row's fourth part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="splitOn">The column where each type after the first starts.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>What <paramref name="map"/> returned for each row.</returns>
    public Task<List<TResult>> QueryAsync<T1, T2, T3, T4, TResult>(
        SqlInterpolatedStringHandler sql, Func<T1, T2, T3, T4, TResult> map, string splitOn = "Id", TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryAsync(sql.Text, map, sql.Parameters, splitOn, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="Query{T1, T2, T3, T4, TResult}(string, Func{T1, T2, T3, T4, TResult}, object?, string, TimeSpan?)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public List<TResult> Query<T1, T2, T3, T4, TResult>(SqlInterpolatedStringHandler sql, Func<T1, T2, T3, T4, TResult> map, object? args, string splitOn = "Id", TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see cref="NotSupportedException"/>. See <see cref="QueryAsync{T1, T2, T3, T4, TResult}(string, Func{T1, T2, T3, T4, TResult}, object?, string, TimeSpan?, CancellationToken)"/>.</summary>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<List<TResult>> QueryAsync<T1, T2, T3, T4, TResult>(
        
        SqlInterpolatedStringHandler sql, Func<T1, T2, T3, T4, TResult> map, object? args, string splitOn = "Id", TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);
}
