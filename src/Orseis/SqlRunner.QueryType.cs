using System.Data.Common;
using Orseis.Execution;
using Orseis.Mapping;

namespace Orseis;

// Rows of a type known only at run time (Dapper's Query(Type, ...)): the same cached mappers as Query<T>, boxed for a
// value type (see RuntimeRowType).
public abstract partial class SqlRunner
{
    /// <summary>Runs <paramref name="sql"/> and maps every row to <paramref name="type"/>, buffered in a list: <see
    /// cref="Query{T}(string, object?, TimeSpan?)"/> for a type known at run time.</summary>
    /// <param name="type">The row type: a class, record, struct or scalar type, as for <c>Query&lt;T&gt;</c>; <see cref="object"/> for <see
    /// cref="DynamicRow"/>s.</param>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The rows, in the order the database returned them (boxed for a value type).</returns>
    /// <exception cref="ArgumentException"><paramref name="type"/> cannot be a row type (an open generic type, a static class,
    /// …).</exception>
    /// <exception cref="MappingException">A column cannot be mapped; the message names the column, the member and the type.</exception>
    public List<object?> Query(Type type, string sql, object? args = null, TimeSpan? timeout = null)
    {
        RuntimeRowType rows = RuntimeRowType.For(type, nameof(type));
        return Run(
            new CommandRequest(sql, args, timeout),
            (command, handlers, async, ct) => TypeListBody(command, handlers, rows, async, ct));
    }

    /// <inheritdoc cref="Query(Type, string, object?, TimeSpan?)"/>
    /// <param name="type">The row type: a class, record, struct or scalar type, as for <c>Query&lt;T&gt;</c>; <see cref="object"/> for <see
    /// cref="DynamicRow"/>s.</param>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<List<object?>> QueryAsync(
        Type type, string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default)
    {
        RuntimeRowType rows = RuntimeRowType.For(type, nameof(type));
        return RunAsync(
            new CommandRequest(sql, args, timeout),
            (command, handlers, async, ct) => TypeListBody(command, handlers, rows, async, ct),
            async: true,
            cancellationToken).AsTask();
    }

    /// <summary>Runs <paramref name="sql"/> and maps its only row to <paramref name="type"/>.</summary>
    /// <param name="type">The row type: a class, record, struct or scalar type, as for <c>Query&lt;T&gt;</c>; <see cref="object"/> for <see
    /// cref="DynamicRow"/>s.</param>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The row.</returns>
    /// <exception cref="ArgumentException"><paramref name="type"/> cannot be a row type (an open generic type, a static class,
    /// …).</exception>
    /// <exception cref="InvalidOperationException">The query returned no row, or more than one.</exception>
    public object? QuerySingle(Type type, string sql, object? args = null, TimeSpan? timeout = null)
    {
        RuntimeRowType rows = RuntimeRowType.For(type, nameof(type));
        return Run(
            new CommandRequest(sql, args, timeout),
            (command, handlers, async, ct) => TypeRowBody(command, handlers, rows, RowLimit.Single, async, ct));
    }

    /// <inheritdoc cref="QuerySingle(Type, string, object?, TimeSpan?)"/>
    /// <param name="type">The row type: a class, record, struct or scalar type, as for <c>Query&lt;T&gt;</c>; <see cref="object"/> for <see
    /// cref="DynamicRow"/>s.</param>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<object?> QuerySingleAsync(
        Type type, string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default)
    {
        RuntimeRowType rows = RuntimeRowType.For(type, nameof(type));
        return RunAsync(
            new CommandRequest(sql, args, timeout),
            (command, handlers, async, ct) => TypeRowBody(command, handlers, rows, RowLimit.Single, async, ct),
            async: true,
            cancellationToken).AsTask();
    }

    /// <summary>Runs <paramref name="sql"/> and maps its only row to <paramref name="type"/>, or returns <see langword="null"/> when there
    /// is none.</summary>
    /// <param name="type">The row type: a class, record, struct or scalar type, as for <c>Query&lt;T&gt;</c>; <see cref="object"/> for <see
    /// cref="DynamicRow"/>s.</param>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The row, or <see langword="null"/>.</returns>
    /// <exception cref="ArgumentException"><paramref name="type"/> cannot be a row type (an open generic type, a static class,
    /// …).</exception>
    /// <exception cref="InvalidOperationException">The query returned more than one row.</exception>
    public object? QuerySingleOrDefault(Type type, string sql, object? args = null, TimeSpan? timeout = null)
    {
        RuntimeRowType rows = RuntimeRowType.For(type, nameof(type));
        return Run(
            new CommandRequest(sql, args, timeout),
            (command, handlers, async, ct) => TypeRowBody(command, handlers, rows, RowLimit.SingleOrDefault, async, ct));
    }

    /// <inheritdoc cref="QuerySingleOrDefault(Type, string, object?, TimeSpan?)"/>
    /// <param name="type">The row type: a class, record, struct or scalar type, as for <c>Query&lt;T&gt;</c>; <see cref="object"/> for <see
    /// cref="DynamicRow"/>s.</param>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<object?> QuerySingleOrDefaultAsync(
        Type type, string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default)
    {
        RuntimeRowType rows = RuntimeRowType.For(type, nameof(type));
        return RunAsync(
            new CommandRequest(sql, args, timeout),
            (command, handlers, async, ct) => TypeRowBody(command, handlers, rows, RowLimit.SingleOrDefault, async, ct),
            async: true,
            cancellationToken).AsTask();
    }

    /// <summary>Runs <paramref name="sql"/> and maps its first row to <paramref name="type"/>; later rows are not read.</summary>
    /// <param name="type">The row type: a class, record, struct or scalar type, as for <c>Query&lt;T&gt;</c>; <see cref="object"/> for <see
    /// cref="DynamicRow"/>s.</param>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The first row.</returns>
    /// <exception cref="ArgumentException"><paramref name="type"/> cannot be a row type (an open generic type, a static class,
    /// …).</exception>
    /// <exception cref="InvalidOperationException">The query returned no row.</exception>
    public object? QueryFirst(Type type, string sql, object? args = null, TimeSpan? timeout = null)
    {
        RuntimeRowType rows = RuntimeRowType.For(type, nameof(type));
        return Run(
            new CommandRequest(sql, args, timeout),
            (command, handlers, async, ct) => TypeRowBody(command, handlers, rows, RowLimit.First, async, ct));
    }

    /// <inheritdoc cref="QueryFirst(Type, string, object?, TimeSpan?)"/>
    /// <param name="type">The row type: a class, record, struct or scalar type, as for <c>Query&lt;T&gt;</c>; <see cref="object"/> for <see
    /// cref="DynamicRow"/>s.</param>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<object?> QueryFirstAsync(
        Type type, string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default)
    {
        RuntimeRowType rows = RuntimeRowType.For(type, nameof(type));
        return RunAsync(
            new CommandRequest(sql, args, timeout),
            (command, handlers, async, ct) => TypeRowBody(command, handlers, rows, RowLimit.First, async, ct),
            async: true,
            cancellationToken).AsTask();
    }

    /// <summary>Runs <paramref name="sql"/> and maps its first row to <paramref name="type"/>, or returns <see langword="null"/> when there
    /// is none.</summary>
    /// <param name="type">The row type: a class, record, struct or scalar type, as for <c>Query&lt;T&gt;</c>; <see cref="object"/> for <see
    /// cref="DynamicRow"/>s.</param>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The first row, or <see langword="null"/>.</returns>
    /// <exception cref="ArgumentException"><paramref name="type"/> cannot be a row type (an open generic type, a static class,
    /// …).</exception>
    public object? QueryFirstOrDefault(Type type, string sql, object? args = null, TimeSpan? timeout = null)
    {
        RuntimeRowType rows = RuntimeRowType.For(type, nameof(type));
        return Run(
            new CommandRequest(sql, args, timeout),
            (command, handlers, async, ct) => TypeRowBody(command, handlers, rows, RowLimit.FirstOrDefault, async, ct));
    }

    /// <inheritdoc cref="QueryFirstOrDefault(Type, string, object?, TimeSpan?)"/>
    /// <param name="type">The row type: a class, record, struct or scalar type, as for <c>Query&lt;T&gt;</c>; <see cref="object"/> for <see
    /// cref="DynamicRow"/>s.</param>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<object?> QueryFirstOrDefaultAsync(
        Type type, string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default)
    {
        RuntimeRowType rows = RuntimeRowType.For(type, nameof(type));
        return RunAsync(
            new CommandRequest(sql, args, timeout),
            (command, handlers, async, ct) => TypeRowBody(command, handlers, rows, RowLimit.FirstOrDefault, async, ct),
            async: true,
            cancellationToken).AsTask();
    }

    private static ValueTask<List<object?>> TypeListBody(
        DbCommand command, TypeHandlerSet? handlers, RuntimeRowType rowType, bool async, CancellationToken cancellationToken) =>
        ListBody(command, handlers, rowType, async, cancellationToken);

    private static ValueTask<object?> TypeRowBody(
        DbCommand command, TypeHandlerSet? handlers, RuntimeRowType rowType, RowLimit limit, bool async, CancellationToken ct) =>
        RowBody(command, handlers, rowType, limit, async, ct);
}
