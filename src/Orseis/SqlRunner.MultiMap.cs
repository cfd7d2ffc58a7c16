using System.Data.Common;
using Orseis.Mapping;

namespace Orseis;

// Multi-mapping: each row split into parts (see MultiMapper for where it splits), each part mapped to its type, and the
// parts combined by the caller's map function (see MultiRow).
public abstract partial class SqlRunner
{
    /// <summary>One multi-mapping call of any number of parts: <paramref name="compose"/> makes the row function of a layout.</summary>
    private List<TResult> MultiMap<TResult>(
        string sql, object? args, TimeSpan? timeout, Type[] types, string splitOn, Func<Delegate[], Func<DbDataReader, TResult>> compose) =>
        Run(new CommandRequest(sql, args, timeout), new MultiRowSource<TResult>(types, splitOn, compose).Read);

    /// <summary>The async form of <see cref="MultiMap{TResult}"/>.</summary>
    private Task<List<TResult>> MultiMapAsync<TResult>(
        string sql, object? args, TimeSpan? timeout, Type[] types, string splitOn, Func<Delegate[], Func<DbDataReader, TResult>> compose,
        CancellationToken cancellationToken) =>
        RunAsync(
            new CommandRequest(sql, args, timeout),
            new MultiRowSource<TResult>(types, splitOn, compose).Read,
            async: true,
            cancellationToken).AsTask();

    /// <summary>
    /// The mapper of a multi-mapped row for <see cref="ListBody{TRow}"/>, the one buffered reading loop: the parts' mappers
    /// for the reader's layout (<see cref="MultiMapper"/>), combined by <c>compose</c>. Its <see cref="Read"/> is the call's
    /// body (one object and one delegate per call, as the closure it replaces).
    /// </summary>
    private sealed class MultiRowSource<TResult>(Type[] types, string splitOn, Func<Delegate[], Func<DbDataReader, TResult>> compose)
        : IRowSource<TResult>
    {
        public Func<DbDataReader, TResult> Mapper(DbDataReader reader, string sql, TypeHandlerSet? handlers) =>
            compose(MultiMapper.Get(reader, types, splitOn, handlers));

        public ValueTask<List<TResult>> Read(DbCommand command, TypeHandlerSet? handlers, bool async, CancellationToken ct) =>
            ListBody(command, handlers, this, async, ct);
    }
}
