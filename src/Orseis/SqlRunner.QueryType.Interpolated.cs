using System.ComponentModel;

namespace Orseis;

// The interpolated-string forms of the calls with a run-time row type, each with its ORSEIS001 guard: Query, QuerySingle.
public abstract partial class SqlRunner
{
    /// <summary>Like <see cref="Query(Type, string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as
    /// parameters.</summary>
    /// <param name="type">The row type.</param>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The rows, in the order the database returned them (boxed for a value type).</returns>
    public List<object?> Query(Type type, SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) =>
        Query(type, sql.Text, sql.Parameters, timeout);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="Query(Type, string, object?, TimeSpan?)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public List<object?> Query(Type type, SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Like <see cref="QueryAsync(Type, string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref
    /// name="sql"/> sent as parameters.</summary>
    /// <param name="type">The row type.</param>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The rows, in the order the database returned them (boxed for a value type).</returns>
    public Task<List<object?>> QueryAsync(
        Type type, SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryAsync(type, sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QueryAsync(Type, string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<List<object?>> QueryAsync(
        Type type, SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null,
        CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Like <see cref="QuerySingle(Type, string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as
    /// parameters.</summary>
    /// <param name="type">The row type.</param>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The row.</returns>
    public object? QuerySingle(Type type, SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) =>
        QuerySingle(type, sql.Text, sql.Parameters, timeout);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QuerySingle(Type, string, object?, TimeSpan?)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public object? QuerySingle(Type type, SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Like <see cref="QuerySingleAsync(Type, string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref
    /// name="sql"/> sent as parameters.</summary>
    /// <param name="type">The row type.</param>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The row.</returns>
    public Task<object?> QuerySingleAsync(
        Type type, SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QuerySingleAsync(type, sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QuerySingleAsync(Type, string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<object?> QuerySingleAsync(
        Type type, SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null,
        CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Like <see cref="QuerySingleOrDefault(Type, string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as
    /// parameters.</summary>
    /// <param name="type">The row type.</param>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The row, or <see langword="null"/>.</returns>
    public object? QuerySingleOrDefault(Type type, SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) =>
        QuerySingleOrDefault(type, sql.Text, sql.Parameters, timeout);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QuerySingleOrDefault(Type, string, object?, TimeSpan?)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public object? QuerySingleOrDefault(Type type, SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Like <see cref="QuerySingleOrDefaultAsync(Type, string, object?, TimeSpan?, CancellationToken)"/>, with the holes of
    /// <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="type">The row type.</param>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The row, or <see langword="null"/>.</returns>
    public Task<object?> QuerySingleOrDefaultAsync(
        Type type, SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QuerySingleOrDefaultAsync(type, sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see
    /// cref="QuerySingleOrDefaultAsync(Type, string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<object?> QuerySingleOrDefaultAsync(
        Type type, SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null,
        CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);
}
