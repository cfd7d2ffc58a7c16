using System.ComponentModel;

namespace Orseis;

// Dapper's non-generic calls with dynamic rows (see SqlRunner.Dynamic.cs): QueryFirst, QueryFirstOrDefault and Stream.
public abstract partial class SqlRunner
{
    /// <summary>Runs <paramref name="sql"/> and reads its first row as a <see cref="DynamicRow"/>; later rows are not read.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The first row.</returns>
    public dynamic QueryFirst(string sql, object? args = null, TimeSpan? timeout = null) =>
        QueryFirst<dynamic>(sql, args, timeout);

    /// <summary>Like <see cref="QueryFirst(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as
    /// parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The first row.</returns>
    public dynamic QueryFirst(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) =>
        QueryFirst<dynamic>(sql.Text, sql.Parameters, timeout);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QueryFirst(string, object?, TimeSpan?)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public dynamic QueryFirst(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <inheritdoc cref="QueryFirst(string, object?, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The first row.</returns>
    public Task<dynamic> QueryFirstAsync(
        string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryFirstAsync<dynamic>(sql, args, timeout, cancellationToken);

    /// <summary>Like <see cref="QueryFirstAsync(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/>
    /// sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The first row.</returns>
    public Task<dynamic> QueryFirstAsync(
        SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryFirstAsync<dynamic>(sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QueryFirstAsync(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<dynamic> QueryFirstAsync(
        SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Runs <paramref name="sql"/> and reads its first row as a <see cref="DynamicRow"/>, or returns <see langword="null"/> when
    /// there is none.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The first row, or <see langword="null"/>.</returns>
    public dynamic? QueryFirstOrDefault(string sql, object? args = null, TimeSpan? timeout = null) =>
        QueryFirstOrDefault<dynamic>(sql, args, timeout);

    /// <summary>Like <see cref="QueryFirstOrDefault(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as
    /// parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The first row, or <see langword="null"/>.</returns>
    public dynamic? QueryFirstOrDefault(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) =>
        QueryFirstOrDefault<dynamic>(sql.Text, sql.Parameters, timeout);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QueryFirstOrDefault(string, object?, TimeSpan?)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public dynamic? QueryFirstOrDefault(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <inheritdoc cref="QueryFirstOrDefault(string, object?, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The first row, or <see langword="null"/>.</returns>
    public Task<dynamic?> QueryFirstOrDefaultAsync(
        string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryFirstOrDefaultAsync<dynamic>(sql, args, timeout, cancellationToken);

    /// <summary>Like <see cref="QueryFirstOrDefaultAsync(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref
    /// name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The first row, or <see langword="null"/>.</returns>
    public Task<dynamic?> QueryFirstOrDefaultAsync(
        SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryFirstOrDefaultAsync<dynamic>(sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QueryFirstOrDefaultAsync(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<dynamic?> QueryFirstOrDefaultAsync(
        SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Runs <paramref name="sql"/> when enumeration starts and yields its rows as <see cref="DynamicRow"/>s one at a time,
    /// unbuffered: <c>Stream&lt;dynamic&gt;</c>.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The rows, read lazily.</returns>
    public IEnumerable<dynamic> Stream(string sql, object? args = null, TimeSpan? timeout = null) =>
        Stream<dynamic>(sql, args, timeout);

    /// <summary>Like <see cref="Stream(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as
    /// parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The rows, read lazily.</returns>
    public IEnumerable<dynamic> Stream(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) =>
        Stream<dynamic>(sql.Text, sql.Parameters, timeout);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="Stream(string, object?, TimeSpan?)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public IEnumerable<dynamic> Stream(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Runs <paramref name="sql"/> when enumeration starts and yields its rows as <see cref="DynamicRow"/>s one at a time,
    /// unbuffered: <c>StreamAsync&lt;dynamic&gt;</c>.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The rows, read lazily.</returns>
    public IAsyncEnumerable<dynamic> StreamAsync(
        string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        StreamAsync<dynamic>(sql, args, timeout, cancellationToken);

    /// <summary>Like <see cref="StreamAsync(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/>
    /// sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The rows, read lazily.</returns>
    public IAsyncEnumerable<dynamic> StreamAsync(
        SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        StreamAsync<dynamic>(sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="StreamAsync(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public IAsyncEnumerable<dynamic> StreamAsync(
        SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);
}
