using System.ComponentModel;

namespace Orseis;

// Dapper's non-generic calls, whose rows are dynamic: each is its generic form with dynamic as the row type (object,
// read as a DynamicRow), with the interpolated-string forms and their ORSEIS001 guards. Query and QuerySingle here.
public abstract partial class SqlRunner
{
    /// <summary>Runs <paramref name="sql"/> and reads every row as a <see cref="DynamicRow"/>, buffered in a list:
    /// <c>Query&lt;dynamic&gt;</c>, as Dapper's <c>Query(sql)</c>.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The rows.</returns>
    public List<dynamic> Query(string sql, object? args = null, TimeSpan? timeout = null) =>
        Query<dynamic>(sql, args, timeout);

    /// <summary>Like <see cref="Query(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as
    /// parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The rows.</returns>
    public List<dynamic> Query(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) =>
        Query<dynamic>(sql.Text, sql.Parameters, timeout);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="Query(string, object?, TimeSpan?)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public List<dynamic> Query(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <inheritdoc cref="Query(string, object?, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The rows.</returns>
    public Task<List<dynamic>> QueryAsync(
        string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryAsync<dynamic>(sql, args, timeout, cancellationToken);

    /// <summary>Like <see cref="QueryAsync(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/> sent
    /// as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The rows.</returns>
    public Task<List<dynamic>> QueryAsync(
        SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryAsync<dynamic>(sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QueryAsync(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<List<dynamic>> QueryAsync(
        SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Runs <paramref name="sql"/> and reads its only row as a <see cref="DynamicRow"/>.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The row.</returns>
    public dynamic QuerySingle(string sql, object? args = null, TimeSpan? timeout = null) =>
        QuerySingle<dynamic>(sql, args, timeout);

    /// <summary>Like <see cref="QuerySingle(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as
    /// parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The row.</returns>
    public dynamic QuerySingle(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) =>
        QuerySingle<dynamic>(sql.Text, sql.Parameters, timeout);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QuerySingle(string, object?, TimeSpan?)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public dynamic QuerySingle(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <inheritdoc cref="QuerySingle(string, object?, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The row.</returns>
    public Task<dynamic> QuerySingleAsync(
        string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QuerySingleAsync<dynamic>(sql, args, timeout, cancellationToken);

    /// <summary>Like <see cref="QuerySingleAsync(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref
    /// name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The row.</returns>
    public Task<dynamic> QuerySingleAsync(
        SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QuerySingleAsync<dynamic>(sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QuerySingleAsync(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<dynamic> QuerySingleAsync(
        SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <summary>Runs <paramref name="sql"/> and reads its only row as a <see cref="DynamicRow"/>, or returns <see langword="null"/> when
    /// there is none.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The row, or <see langword="null"/>.</returns>
    public dynamic? QuerySingleOrDefault(string sql, object? args = null, TimeSpan? timeout = null) =>
        QuerySingleOrDefault<dynamic>(sql, args, timeout);

    /// <summary>Like <see cref="QuerySingleOrDefault(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as
    /// parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The row, or <see langword="null"/>.</returns>
    public dynamic? QuerySingleOrDefault(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) =>
        QuerySingleOrDefault<dynamic>(sql.Text, sql.Parameters, timeout);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see cref="QuerySingleOrDefault(string, object?, TimeSpan?)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public dynamic? QuerySingleOrDefault(SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null) =>
        throw new NotSupportedException(InterpolatedWithArgs);

    /// <inheritdoc cref="QuerySingleOrDefault(string, object?, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The row, or <see langword="null"/>.</returns>
    public Task<dynamic?> QuerySingleOrDefaultAsync(
        string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QuerySingleOrDefaultAsync<dynamic>(sql, args, timeout, cancellationToken);

    /// <summary>Like <see cref="QuerySingleOrDefaultAsync(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref
    /// name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The row, or <see langword="null"/>.</returns>
    public Task<dynamic?> QuerySingleOrDefaultAsync(
        SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QuerySingleOrDefaultAsync<dynamic>(sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Not callable: an interpolated string with an args object is a compile error (ORSEIS001); it always throws <see
    /// cref="NotSupportedException"/>. See <see
    /// cref="QuerySingleOrDefaultAsync(string, object?, TimeSpan?, CancellationToken)"/>.</summary>
    /// <returns>Never returns.</returns>
    [Obsolete(InterpolatedWithArgs, error: true, DiagnosticId = InterpolatedWithArgsId)]
    [EditorBrowsable(EditorBrowsableState.Never)]
    public Task<dynamic?> QuerySingleOrDefaultAsync(
        SqlInterpolatedStringHandler sql, object? args, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        throw new NotSupportedException(InterpolatedWithArgs);
}
