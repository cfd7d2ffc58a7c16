using System.Data;
using System.Data.Common;
using System.Diagnostics.CodeAnalysis;
using Orseis.Mapping;

namespace Orseis;

// Query: every row mapped and buffered, or one row (First, Single and their OrDefault forms).
public abstract partial class SqlRunner
{
    /// <summary>
    /// Every row of the first result set, mapped by <paramref name="rows"/>' mapper (<see cref="RowMapper{T}"/>'s when null),
    /// then the later result sets drained: the one buffered reading loop of <c>Query&lt;T&gt;</c>, <c>Query(Type)</c> and
    /// multi-mapping.
    /// </summary>
    [SuppressMessage("Performance", "CA1859", Justification = "Typed by the row; RuntimeRowType and MultiRowSource implement it.")]
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
                return limit.NeedsRow() ? throw limit.NoRow("Query", "the query returned") : default;
            }

            Func<DbDataReader, TRow> map = rows is null
                ? RowMapper<TRow>.Get(reader, command.CommandText, handlers)
                : rows.Mapper(reader, command.CommandText, handlers);
            TRow row = map(reader);
            if (limit.AtMostOne() && await ReadAsync(reader, async, cancellationToken).ConfigureAwait(false))
                throw limit.MoreThanOne("Query", "the query returned");
            await DrainAsync(reader, async, cancellationToken).ConfigureAwait(false);
            return row;
        }
        finally
        {
            await DisposeReaderAsync(reader, async).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Awaits a row that <see cref="RowLimit.Single"/> or <see cref="RowLimit.First"/> guarantees. The public methods that
    /// use it are not <see langword="async"/> themselves, so the flow state <c>RunAsync</c> sets stays in the caller's
    /// execution context (an <see langword="async"/> method would drop it on return, hiding a loop of them from churn).
    /// </summary>
    private static async Task<T> NotNull<T>(ValueTask<T?> row) => (await row.ConfigureAwait(false))!;
}
