using System.Data;
using System.Data.Common;
using System.Diagnostics.CodeAnalysis;
using Orseis.Execution;
using Orseis.Mapping;

namespace Orseis;

// Query: every row mapped and buffered, or one row (First, Single and their OrDefault forms).
public abstract partial class SqlRunner
{
    /// <summary>Runs <paramref name="sql"/> and maps every row to <typeparamref name="T"/>, buffered in a list.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters: an object whose properties are named after them, a dictionary, or <see cref="DbParameter"/>s.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The rows, in the order the database returned them.</returns>
    /// <exception cref="MappingException">A column cannot be mapped; the message names the column and the member.</exception>
    public List<T> Query<T>(string sql, object? args = null, TimeSpan? timeout = null) =>
        Run(new CommandRequest(sql, args, timeout), static (command, handlers, async, ct) => ListBody<T>(command, handlers, null, async, ct));

    /// <inheritdoc cref="Query{T}(string, object?, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<List<T>> QueryAsync<T>(string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        RunAsync(new CommandRequest(sql, args, timeout), static (command, handlers, async, ct) => ListBody<T>(command, handlers, null, async, ct), async: true, cancellationToken).AsTask();

    /// <summary>Runs <paramref name="sql"/> and maps its only row.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The row.</returns>
    /// <exception cref="InvalidOperationException">The query returned no row, or more than one.</exception>
    public T QuerySingle<T>(string sql, object? args = null, TimeSpan? timeout = null) =>
        Run(new CommandRequest(sql, args, timeout), static (command, handlers, async, ct) => RowBody<T>(command, handlers, null, RowLimit.Single, async, ct))!;

    /// <inheritdoc cref="QuerySingle{T}(string, object?, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<T> QuerySingleAsync<T>(string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        NotNull(RunAsync(new CommandRequest(sql, args, timeout), static (command, handlers, async, ct) => RowBody<T>(command, handlers, null, RowLimit.Single, async, ct), async: true, cancellationToken));

    /// <summary>Runs <paramref name="sql"/> and maps its only row, or returns <see langword="default"/> when there is none.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The row, or <see langword="default"/>.</returns>
    /// <exception cref="InvalidOperationException">The query returned more than one row.</exception>
    public T? QuerySingleOrDefault<T>(string sql, object? args = null, TimeSpan? timeout = null) =>
        Run(new CommandRequest(sql, args, timeout), static (command, handlers, async, ct) => RowBody<T>(command, handlers, null, RowLimit.SingleOrDefault, async, ct));

    /// <inheritdoc cref="QuerySingleOrDefault{T}(string, object?, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<T?> QuerySingleOrDefaultAsync<T>(string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        RunAsync(new CommandRequest(sql, args, timeout), static (command, handlers, async, ct) => RowBody<T>(command, handlers, null, RowLimit.SingleOrDefault, async, ct), async: true, cancellationToken).AsTask();

    /// <summary>Runs <paramref name="sql"/> and maps its first row; later rows are not read.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The first row.</returns>
    /// <exception cref="InvalidOperationException">The query returned no row.</exception>
    public T QueryFirst<T>(string sql, object? args = null, TimeSpan? timeout = null) =>
        Run(new CommandRequest(sql, args, timeout), static (command, handlers, async, ct) => RowBody<T>(command, handlers, null, RowLimit.First, async, ct))!;

    /// <inheritdoc cref="QueryFirst{T}(string, object?, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<T> QueryFirstAsync<T>(string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        NotNull(RunAsync(new CommandRequest(sql, args, timeout), static (command, handlers, async, ct) => RowBody<T>(command, handlers, null, RowLimit.First, async, ct), async: true, cancellationToken));

    /// <summary>Runs <paramref name="sql"/> and maps its first row, or returns <see langword="default"/> when there is none.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The first row, or <see langword="default"/>.</returns>
    public T? QueryFirstOrDefault<T>(string sql, object? args = null, TimeSpan? timeout = null) =>
        Run(new CommandRequest(sql, args, timeout), static (command, handlers, async, ct) => RowBody<T>(command, handlers, null, RowLimit.FirstOrDefault, async, ct));

    /// <inheritdoc cref="QueryFirstOrDefault{T}(string, object?, TimeSpan?)"/>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<T?> QueryFirstOrDefaultAsync<T>(string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        RunAsync(new CommandRequest(sql, args, timeout), static (command, handlers, async, ct) => RowBody<T>(command, handlers, null, RowLimit.FirstOrDefault, async, ct), async: true, cancellationToken).AsTask();

    /// <summary>
    /// Every row of the first result set, mapped by <paramref name="rows"/>' mapper (<see cref="RowMapper{T}"/>'s when null),
    /// then the later result sets drained: the one buffered reading loop of <c>Query&lt;T&gt;</c> and <c>Query(Type)</c>.
    /// </summary>
    [SuppressMessage("Performance", "CA1859", Justification = "Typed by the row; RuntimeRowType is its one implementation.")]
    private static async ValueTask<List<TRow>> ListBody<TRow>(
        DbCommand command, TypeHandlerSet? handlers, IRowSource<TRow>? rows, bool async, CancellationToken cancellationToken)
    {
        DbDataReader reader = await ExecuteReaderAsync(command, CommandBehavior.Default, async, cancellationToken).ConfigureAwait(false);
        try
        {
            var list = new List<TRow>();
            if (await ReadAsync(reader, async, cancellationToken).ConfigureAwait(false))
            {
                Func<DbDataReader, TRow> map = rows is null
                    ? RowMapper<TRow>.Get(reader, command.CommandText, handlers)
                    : rows.Mapper(reader, command.CommandText, handlers);
                do
                {
                    list.Add(map(reader));
                }
                while (await ReadAsync(reader, async, cancellationToken).ConfigureAwait(false));
            }

            await DrainAsync(reader, async, cancellationToken).ConfigureAwait(false);
            return list;
        }
        finally
        {
            await DisposeReaderAsync(reader, async).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// One row as <paramref name="limit"/> asks, mapped by <paramref name="rows"/>' mapper (<see cref="RowMapper{T}"/>'s when
    /// null), then the later result sets drained.
    /// </summary>
    [SuppressMessage("Performance", "CA1859", Justification = "Typed by the row; RuntimeRowType is its one implementation.")]
    private static async ValueTask<TRow?> RowBody<TRow>(
        DbCommand command,
        TypeHandlerSet? handlers,
        IRowSource<TRow>? rows,
        RowLimit limit,
        bool async,
        CancellationToken cancellationToken)
    {
        // SingleRow lets a provider ask the server for one row (Npgsql does); the later statements still run and are drained.
        CommandBehavior behavior = limit is RowLimit.First or RowLimit.FirstOrDefault ? CommandBehavior.SingleRow : CommandBehavior.Default;
        DbDataReader reader = await ExecuteReaderAsync(command, behavior, async, cancellationToken).ConfigureAwait(false);
        try
        {
            if (!await ReadAsync(reader, async, cancellationToken).ConfigureAwait(false))
            {
                await DrainAsync(reader, async, cancellationToken).ConfigureAwait(false);
                return limit is RowLimit.First or RowLimit.Single
                    ? throw new InvalidOperationException($"{Describe(limit)} expected a row, but the query returned none.")
                    : default;
            }

            Func<DbDataReader, TRow> map = rows is null
                ? RowMapper<TRow>.Get(reader, command.CommandText, handlers)
                : rows.Mapper(reader, command.CommandText, handlers);
            TRow row = map(reader);
            if (limit is RowLimit.Single or RowLimit.SingleOrDefault && await ReadAsync(reader, async, cancellationToken).ConfigureAwait(false))
                throw new InvalidOperationException($"{Describe(limit)} expected at most one row, but the query returned more than one.");
            await DrainAsync(reader, async, cancellationToken).ConfigureAwait(false);
            return row;
        }
        finally
        {
            await DisposeReaderAsync(reader, async).ConfigureAwait(false);
        }
    }

    private static string Describe(RowLimit limit) => "Query" + limit;

    /// <summary>
    /// Awaits a row that <see cref="RowLimit.Single"/> or <see cref="RowLimit.First"/> guarantees. The public methods that
    /// use it are not <see langword="async"/> themselves, so the flow state <c>RunAsync</c> sets stays in the caller's
    /// execution context (an <see langword="async"/> method would drop it on return, hiding a loop of them from churn).
    /// </summary>
    private static async Task<T> NotNull<T>(ValueTask<T?> row) => (await row.ConfigureAwait(false))!;
}
