using System.Data.Common;
using Orseis.Execution;
using Orseis.Mapping;

namespace Orseis;

// Multi-mapping: each row split into parts (see MultiMapper for where it splits), each part mapped to its type, and the
// parts combined by the caller's map function (see MultiRow).
public abstract partial class SqlRunner
{
    /// <summary>
    /// Runs <paramref name="sql"/> and maps each row to 2 types, split at the columns <paramref name="splitOn"/> names,
    /// combined by <paramref name="map"/>; buffered in a list. Typically a join: <c>select u.id, u.name, o.id, o.total from users u join
    /// orders o …</c>.
    /// </summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="map">Combines the parts of one row. A part after the first whose split column is NULL arrives as <see
    /// langword="default"/>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="splitOn">
    /// The column where each type after the first starts: one name for every split, or one per type after the first,
    /// comma-separated. Searched from the right, case-insensitively. Default <c>"Id"</c>.
    /// </param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>What <paramref name="map"/> returned for each row, in order.</returns>
    /// <exception cref="MappingException">A split column is not in the result (the message lists the columns), or a part cannot be
    /// mapped.</exception>
    public List<TResult> Query<T1, T2, TResult>(
        string sql, Func<T1, T2, TResult> map, object? args = null, string splitOn = "Id", TimeSpan? timeout = null) =>
        MultiMap(sql, args, timeout, MultiTypes<T1, T2>.Types, splitOn, MultiRow.Compose(map));

    /// <inheritdoc cref="Query{T1, T2, TResult}(string, Func{T1, T2, TResult}, object?, string, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="splitOn">The column where each type after the first starts (see the sync form).</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<List<TResult>> QueryAsync<T1, T2, TResult>(
        string sql, Func<T1, T2, TResult> map, object? args = null,
        string splitOn = "Id", TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        MultiMapAsync(sql, args, timeout, MultiTypes<T1, T2>.Types, splitOn, MultiRow.Compose(map), cancellationToken);

    /// <summary>
    /// Runs <paramref name="sql"/> and maps each row to 3 types, split at the columns <paramref name="splitOn"/> names,
    /// combined by <paramref name="map"/>; buffered in a list. Typically a join: <c>select u.id, u.name, o.id, o.total from users u join
    /// orders o …</c>.
    /// </summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="map">Combines the parts of one row. A part after the first whose split column is NULL arrives as <see
    /// langword="default"/>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="splitOn">
    /// The column where each type after the first starts: one name for every split, or one per type after the first,
    /// comma-separated. Searched from the right, case-insensitively. Default <c>"Id"</c>.
    /// </param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>What <paramref name="map"/> returned for each row, in order.</returns>
    /// <exception cref="MappingException">A split column is not in the result (the message lists the columns), or a part cannot be
    /// mapped.</exception>
    public List<TResult> Query<T1, T2, T3, TResult>(
        string sql, Func<T1, T2, T3, TResult> map, object? args = null, string splitOn = "Id", TimeSpan? timeout = null) =>
        MultiMap(sql, args, timeout, MultiTypes<T1, T2, T3>.Types, splitOn, MultiRow.Compose(map));

    /// <inheritdoc cref="Query{T1, T2, T3, TResult}(string, Func{T1, T2, T3, TResult}, object?, string, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="splitOn">The column where each type after the first starts (see the sync form).</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<List<TResult>> QueryAsync<T1, T2, T3, TResult>(
        string sql, Func<T1, T2, T3, TResult> map, object? args = null,
        string splitOn = "Id", TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        MultiMapAsync(sql, args, timeout, MultiTypes<T1, T2, T3>.Types, splitOn, MultiRow.Compose(map), cancellationToken);

    /// <summary>
    /// Runs <paramref name="sql"/> and maps each row to 4 types, split at the columns <paramref name="splitOn"/> names,
    /// combined by <paramref name="map"/>; buffered in a list. Typically a join: <c>select u.id, u.name, o.id, o.total from users u join
    /// orders o …</c>.
    /// </summary>
    /// <typeparam name="T1">The type of the row's first part.</typeparam>
    /// <typeparam name="T2">The type of the row's second part.</typeparam>
    /// <typeparam name="T3">The type of the row's third part.</typeparam>
    /// <typeparam name="T4">The type of the row's fourth part.</typeparam>
    /// <typeparam name="TResult">What <paramref name="map"/> makes of the parts.</typeparam>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="map">Combines the parts of one row. A part after the first whose split column is NULL arrives as <see
    /// langword="default"/>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="splitOn">
    /// The column where each type after the first starts: one name for every split, or one per type after the first,
    /// comma-separated. Searched from the right, case-insensitively. Default <c>"Id"</c>.
    /// </param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>What <paramref name="map"/> returned for each row, in order.</returns>
    /// <exception cref="MappingException">A split column is not in the result (the message lists the columns), or a part cannot be
    /// mapped.</exception>
    public List<TResult> Query<T1, T2, T3, T4, TResult>(
        string sql, Func<T1, T2, T3, T4, TResult> map, object? args = null, string splitOn = "Id", TimeSpan? timeout = null) =>
        MultiMap(sql, args, timeout, MultiTypes<T1, T2, T3, T4>.Types, splitOn, MultiRow.Compose(map));

    /// <inheritdoc cref="Query{T1, T2, T3, T4, TResult}(string, Func{T1, T2, T3, T4, TResult}, object?, string, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="map">Combines the parts of one row.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="splitOn">The column where each type after the first starts (see the sync form).</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<List<TResult>> QueryAsync<T1, T2, T3, T4, TResult>(
        string sql, Func<T1, T2, T3, T4, TResult> map, object? args = null,
        string splitOn = "Id", TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        MultiMapAsync(sql, args, timeout, MultiTypes<T1, T2, T3, T4>.Types, splitOn, MultiRow.Compose(map), cancellationToken);

    /// <summary>One multi-mapping call of any number of parts: <paramref name="compose"/> makes the row function of a layout.</summary>
    private List<TResult> MultiMap<TResult>(
        string sql, object? args, TimeSpan? timeout, Type[] types, string splitOn, Func<Delegate[], Func<DbDataReader, TResult>> compose) =>
        Run(
            new CommandRequest(sql, args, timeout),
            (command, handlers, async, ct) => MultiMapBody(command, handlers, types, splitOn, compose, async, ct));

    /// <summary>The async form of <see cref="MultiMap{TResult}"/>.</summary>
    private Task<List<TResult>> MultiMapAsync<TResult>(
        string sql, object? args, TimeSpan? timeout, Type[] types, string splitOn, Func<Delegate[], Func<DbDataReader, TResult>> compose,
        CancellationToken cancellationToken) =>
        RunAsync(
            new CommandRequest(sql, args, timeout),
            (command, handlers, async, ct) => MultiMapBody(command, handlers, types, splitOn, compose, async, ct),
            async: true, cancellationToken).AsTask();

    private static async ValueTask<List<TResult>> MultiMapBody<TResult>(
        DbCommand command, TypeHandlerSet? handlers, Type[] types, string splitOn, Func<Delegate[], Func<DbDataReader, TResult>> compose,
        bool async, CancellationToken cancellationToken)
    {
        DbDataReader reader =
            await ExecuteReaderAsync(command, System.Data.CommandBehavior.Default, async, cancellationToken).ConfigureAwait(false);
        try
        {
            var rows = new List<TResult>();
            if (await ReadAsync(reader, async, cancellationToken).ConfigureAwait(false))
            {
                Func<DbDataReader, TResult> row = compose(MultiMapper.Get(reader, types, splitOn, handlers));
                do
                {
                    rows.Add(row(reader));
                }
                while (await ReadAsync(reader, async, cancellationToken).ConfigureAwait(false));
            }

            await DrainAsync(reader, async, cancellationToken).ConfigureAwait(false);
            return rows;
        }
        finally
        {
            await DisposeReaderAsync(reader, async).ConfigureAwait(false);
        }
    }
}
