using System.Data.Common;
using Orseis.Execution;
using Orseis.Mapping;

namespace Orseis;

// Multi-mapping: each row split into parts (see MultiMapper for where it splits), each part mapped to its type, and the
// parts combined by the caller's map function (see MultiRow).
public abstract partial class SqlRunner
{
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
