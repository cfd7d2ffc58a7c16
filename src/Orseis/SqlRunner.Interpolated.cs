namespace Orseis;

// The interpolated-string forms: every hole becomes a parameter (see SqlInterpolatedStringHandler).
public abstract partial class SqlRunner
{
    /// <summary>Like <see cref="Scalar{T}(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The value, or <see langword="default"/> when there is none.</returns>
    public T? Scalar<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) => Scalar<T>(sql.Text, sql.Parameters, timeout);

    /// <summary>Like <see cref="ScalarAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The value, or <see langword="default"/> when there is none.</returns>
    public Task<T?> ScalarAsync<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        ScalarAsync<T>(sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Like <see cref="Execute(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The rows affected.</returns>
    public int Execute(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) => Execute(sql.Text, sql.Parameters, timeout);

    /// <summary>Like <see cref="ExecuteAsync(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The rows affected.</returns>
    public Task<int> ExecuteAsync(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        ExecuteAsync(sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Like <see cref="Query{T}(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The rows.</returns>
    public List<T> Query<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) => Query<T>(sql.Text, sql.Parameters, timeout);

    /// <summary>Like <see cref="QueryAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The rows.</returns>
    public Task<List<T>> QueryAsync<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryAsync<T>(sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Like <see cref="QuerySingle{T}(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The row.</returns>
    public T QuerySingle<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) => QuerySingle<T>(sql.Text, sql.Parameters, timeout);

    /// <summary>Like <see cref="QuerySingleAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The row.</returns>
    public Task<T> QuerySingleAsync<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QuerySingleAsync<T>(sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Like <see cref="QuerySingleOrDefault{T}(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The row, or <see langword="default"/>.</returns>
    public T? QuerySingleOrDefault<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) => QuerySingleOrDefault<T>(sql.Text, sql.Parameters, timeout);

    /// <summary>Like <see cref="QuerySingleOrDefaultAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The row, or <see langword="default"/>.</returns>
    public Task<T?> QuerySingleOrDefaultAsync<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QuerySingleOrDefaultAsync<T>(sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Like <see cref="QueryFirst{T}(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The first row.</returns>
    public T QueryFirst<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) => QueryFirst<T>(sql.Text, sql.Parameters, timeout);

    /// <summary>Like <see cref="QueryFirstAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The first row.</returns>
    public Task<T> QueryFirstAsync<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryFirstAsync<T>(sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Like <see cref="QueryFirstOrDefault{T}(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The first row, or <see langword="default"/>.</returns>
    public T? QueryFirstOrDefault<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) => QueryFirstOrDefault<T>(sql.Text, sql.Parameters, timeout);

    /// <summary>Like <see cref="QueryFirstOrDefaultAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The first row, or <see langword="default"/>.</returns>
    public Task<T?> QueryFirstOrDefaultAsync<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        QueryFirstOrDefaultAsync<T>(sql.Text, sql.Parameters, timeout, cancellationToken);

    /// <summary>Like <see cref="Stream{T}(string, object?, TimeSpan?)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The rows, read lazily.</returns>
    public IEnumerable<T> Stream<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null) => Stream<T>(sql.Text, sql.Parameters, timeout);

    /// <summary>Like <see cref="StreamAsync{T}(string, object?, TimeSpan?, CancellationToken)"/>, with the holes of <paramref name="sql"/> sent as parameters.</summary>
    /// <param name="sql">An interpolated string; each hole becomes a parameter.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The rows, read lazily.</returns>
    public IAsyncEnumerable<T> StreamAsync<T>(SqlInterpolatedStringHandler sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        StreamAsync<T>(sql.Text, sql.Parameters, timeout, cancellationToken);
}
