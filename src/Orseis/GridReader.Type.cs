using Orseis.Execution;
using Orseis.Mapping;

namespace Orseis;

// Reading a result set into a type known only at run time (Dapper's GridReader.Read(Type)).
public sealed partial class GridReader
{
    /// <summary>Maps every row of the current result set to <paramref name="type"/> (as <see cref="Read{T}()"/> does) and moves to
    /// the next.</summary>
    /// <param name="type">The row type: a class, record, struct or scalar type; <see cref="object"/> for <see cref="DynamicRow"/>s.</param>
    /// <returns>The rows (boxed for a value type).</returns>
    /// <exception cref="ArgumentException">
    /// <paramref name="type"/> cannot be a row type (an open generic type, a static class, …).
    /// </exception>
    /// <exception cref="InvalidOperationException">Every result set has already been read.</exception>
    public List<object?> Read(Type type) => SyncPath.Done(ReadTypeAsync(type, async: false, CancellationToken.None));

    /// <inheritdoc cref="Read(Type)"/>
    /// <param name="type">The row type.</param>
    /// <param name="cancellationToken">Cancels the read.</param>
    public Task<List<object?>> ReadAsync(Type type, CancellationToken cancellationToken = default) =>
        ReadTypeAsync(type, async: true, cancellationToken).AsTask();

    private ValueTask<List<object?>> ReadTypeAsync(Type type, bool async, CancellationToken cancellationToken)
    {
        RuntimeRowType rows = RuntimeRowType.For(type, nameof(type));
        return ReadRowsAsync(rows.Mapper, async, cancellationToken);
    }
}
