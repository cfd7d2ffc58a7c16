using System.Data;
using System.Data.Common;
using Orseis.Mapping;

namespace Orseis;

public abstract partial class SqlRunner
{
    // A reader rather than ExecuteScalar (which the providers here implement with a reader too), so a value that
    // cannot convert is reported with its column's name and database type. CommandBehavior.Default and a drain to the
    // end, like ExecuteScalar: the rest of the batch runs, and an error the server sends after the value (SqlClient:
    // a RAISERROR after the SELECT) is thrown, not lost in the reader's Close.
    private static async ValueTask<T?> ScalarBody<T>(DbCommand command, Mapping.TypeHandlerSet? handlers, bool async, CancellationToken cancellationToken)
    {
        DbDataReader reader = await ExecuteReaderAsync(command, CommandBehavior.Default, async, cancellationToken).ConfigureAwait(false);
        try
        {
            bool hasValue = await ReadAsync(reader, async, cancellationToken).ConfigureAwait(false);
            T? value = hasValue ? ScalarValue<T>(reader, handlers) : default; // converted while the reader still describes the column
            await DrainAsync(reader, async, cancellationToken).ConfigureAwait(false);

            return hasValue ? value : NoScalar<T>();
        }
        finally
        {
            await DisposeReaderAsync(reader, async).ConfigureAwait(false);
        }
    }

    private static T? NoScalar<T>() =>
        default(T) is null
            ? default
            : throw new MappingException(
                $"The query returned no row, so there is no value for the requested type {ScalarTypes.Describe(typeof(T))}. " +
                $"Ask for a nullable type ({typeof(T).Name}?) when no row is a valid answer.", column: null, member: null);

    private static T? ScalarValue<T>(DbDataReader reader, TypeHandlerSet? handlers)
    {
        object value = reader.GetValue(0);
        ITypeHandler? handler = handlers?.For(typeof(T));
        if (value is T typed && handler is null)
            return typed;
        if (value is DBNull)
        {
            if (default(T) is null || handlers?.NullKeepsDefault == true)
                return default;
            throw MappingErrors.NullColumn(reader, 0, member: null, typeof(T));
        }

        if (handler is not null)
        {
            try
            {
                return (T?)handler.ParseBoxed(value);
            }
            catch (Exception error)
            {
                throw MappingErrors.Handler(error, reader, 0, member: null, typeof(T), handler.GetType());
            }
        }

        try
        {
            return ValueConverter.To<T>(value);
        }
        catch (Exception error) when (error is InvalidCastException or OverflowException)
        {
            throw MappingErrors.Column(error, reader, 0, member: null, typeof(T));
        }
    }
}
