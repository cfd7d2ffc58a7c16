using System.ComponentModel;

namespace Orseis;

// The interpolated-string forms of QueryFirst and QueryFirstOrDefault with a run-time row type, with their ORSEIS001 guards.
public abstract partial class SqlRunner
{
    /// <summary>Like <see cref="QueryFirst(Type, string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as
    /// parameters.</summary>
    /// <param name="type">The row type.</param>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The first row.</returns>
    public object? QueryFirst(Type type, SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) =>
        QueryFirst(type, sql.Text, sql.Parameters, timeout);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QueryFirst(Type, string, object?, TimeSpan?)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public object? QueryFirst(Type type, SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Like <see cref="QueryFirstAsync(Type, string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref
    /// name="sql"/> sent as parameters.</summary>
    /// <param name="type">The row type.</param>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The first row.</returns>
    public Task<object?> QueryFirstAsync(
        Type type, SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryFirstAsync(type, sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QueryFirstAsync(Type, string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<object?> QueryFirstAsync(
        Type type, SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null,
        CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Like <see cref="QueryFirstOrDefault(Type, string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as
    /// parameters.</summary>
    /// <param name="type">The row type.</param>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The first row, or <see langword="null"/>.</returns>
    public object? QueryFirstOrDefault(Type type, SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) =>
        QueryFirstOrDefault(type, sql.Text, sql.Parameters, timeout);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QueryFirstOrDefault(Type, string, object?, TimeSpan?)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public object? QueryFirstOrDefault(Type type, SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Like <see cref="QueryFirstOrDefaultAsync(Type, string, object?, TimeSpan?, CancellationToken)"/>, with the holes of
    /// <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="type">The row type.</param>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The first row, or <see langword="null"/>.</returns>
    public Task<object?> QueryFirstOrDefaultAsync(
        Type type, SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryFirstOrDefaultAsync(type, sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see
    /// cref="QueryFirstOrDefaultAsync(Type, string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<object?> QueryFirstOrDefaultAsync(
        Type type, SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null,
        CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);
}
