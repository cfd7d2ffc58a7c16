using System.Data.Common;
using Orseis.Execution;
using Orseis.Mapping;

namespace Orseis;

public abstract partial class SqlRunner
{
    /// <summary>Runs <paramref name="sql"/> and returns the first column of the first row, converted to <typeparamref name="T"/>.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters: an object whose properties are named after them, a dictionary, or <see cref="DbParameter"/>s.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The value; <see langword="default"/> when there is no row or the value is NULL and <typeparamref name="T"/> can hold it.</returns>
    /// <exception cref="MappingException">The value is NULL (or missing) and <typeparamref name="T"/> cannot hold NULL, or it cannot convert.</exception>
    public T? Scalar<T>(string sql, object? args = null, TimeSpan? timeout = null) =>
        Run(new CommandRequest(sql, args, timeout), static (command, async, ct) => ScalarBody<T>(command, async, ct));

    /// <summary>Runs <paramref name="sql"/> and returns the first column of the first row, converted to <typeparamref name="T"/>.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters: an object whose properties are named after them, a dictionary, or <see cref="DbParameter"/>s.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The value; <see langword="default"/> when there is no row or the value is NULL and <typeparamref name="T"/> can hold it.</returns>
    public Task<T?> ScalarAsync<T>(string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        RunAsync(new CommandRequest(sql, args, timeout), static (command, async, ct) => ScalarBody<T>(command, async, ct), async: true, cancellationToken).AsTask();

    /// <summary>Runs <paramref name="sql"/> and returns the number of rows it affected.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters: an object whose properties are named after them, a dictionary, or <see cref="DbParameter"/>s.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <returns>The rows affected, as the provider counts them.</returns>
    public int Execute(string sql, object? args = null, TimeSpan? timeout = null) =>
        Run(new CommandRequest(sql, args, timeout), static (command, async, ct) => ExecuteBody(command, async, ct));

    /// <summary>Runs <paramref name="sql"/> and returns the number of rows it affected.</summary>
    /// <param name="sql">The SQL; parameters are written <c>@name</c>.</param>
    /// <param name="args">The parameters: an object whose properties are named after them, a dictionary, or <see cref="DbParameter"/>s.</param>
    /// <param name="timeout">The command timeout for this call; null for the database's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>The rows affected, as the provider counts them.</returns>
    public Task<int> ExecuteAsync(string sql, object? args = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default) =>
        RunAsync(new CommandRequest(sql, args, timeout), static (command, async, ct) => ExecuteBody(command, async, ct), async: true, cancellationToken).AsTask();

    private static async ValueTask<T?> ScalarBody<T>(DbCommand command, bool async, CancellationToken cancellationToken)
    {
        object? value = async ? await command.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) : command.ExecuteScalar();
        return ScalarValue<T>(value);
    }

    private static async ValueTask<int> ExecuteBody(DbCommand command, bool async, CancellationToken cancellationToken) =>
        async ? await command.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false) : command.ExecuteNonQuery();

    private static T? ScalarValue<T>(object? value)
    {
        if (value is T typed)
            return typed;
        if (value is null or DBNull)
        {
            if (default(T) is null)
                return default;
            throw new MappingException(
                $"The query returned no row or NULL, which the requested type {ScalarTypes.Describe(typeof(T))} cannot hold. " +
                $"Ask for a nullable type ({typeof(T).Name}?) or COALESCE the value in SQL.", column: null, member: null);
        }

        try
        {
            return ValueConverter.To<T>(value);
        }
        catch (Exception error) when (error is InvalidCastException or OverflowException)
        {
            string reason = error is OverflowException ? "the value is out of its range" : error.Message.TrimEnd('.');
            throw new MappingException(
                $"Cannot convert the scalar result ({value.GetType().Name}) to the requested type {ScalarTypes.Describe(typeof(T))}: {reason}.",
                column: null, member: null, error);
        }
    }
}
