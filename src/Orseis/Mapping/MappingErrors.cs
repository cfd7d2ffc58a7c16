using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>
/// Builds the mapping errors thrown from compiled mappers. Messages name the column, its database type, the member and
/// its type; never the value.
/// </summary>
internal static class MappingErrors
{
    public static Exception NullColumn(DbDataReader reader, int ordinal, string? member, Type target)
    {
        string column = SafeName(reader, ordinal);
        return new MappingException(
            $"Column '{column}' ({SafeDbType(reader, ordinal)}) is NULL in a row, but {Target(member, target)} cannot hold NULL. " +
            $"Make it {ScalarTypes.Describe(target)}? (nullable) or COALESCE the column in SQL.",
            column, member);
    }

    public static Exception Column(Exception error, DbDataReader reader, int ordinal, string? member, Type target)
    {
        if (error is MappingException)
            return error;
        if (IsNull(reader, ordinal))
            return NullColumn(reader, ordinal, member, target); // the provider's typed getter refused a NULL
        string column = SafeName(reader, ordinal);
        string reason = error switch
        {
            OverflowException => "the value is out of the member type's range",
            InvalidCastException => error.Message.TrimEnd('.'),
            FormatException => "the provider could not parse the value as the member type",
            _ => $"{error.GetType().Name} while reading the value",
        };
        return new MappingException(
            $"Cannot map column '{column}' ({SafeDbType(reader, ordinal)}, read as {SafeFieldType(reader, ordinal)}) " +
            $"to {Target(member, target)}: {reason}.",
            column, member, error is InvalidCastException or OverflowException ? error : null);
    }

    /// <summary>A type handler's Parse failed: names the column, the member and the handler; never the value (nor the handler's message,
    /// which may hold it).</summary>
    public static Exception Handler(Exception error, DbDataReader reader, int ordinal, string? member, Type target, Type handler)
    {
        if (error is MappingException)
            return error;
        string column = SafeName(reader, ordinal);
        return new MappingException(
            $"Type handler {handler.Name} failed to read column '{column}' " +
            $"({SafeDbType(reader, ordinal)}, read as {SafeFieldType(reader, ordinal)}) " +
            $"into {Target(member, target)}: it threw {error.GetType().Name} (the inner exception).",
            column, member, error);
    }

    /// <summary>A row type none of whose constructor parameters, settable properties or fields has a column.</summary>
    public static MappingException NoColumnMatches(Type type, Layout layout) =>
        new($"None of the result's columns ({string.Join(", ", layout.Names)}) matches a constructor parameter, settable property or " +
            $"field of {type.Name}. Name the columns after the members (case and underscores are ignored) or alias them in SQL.",
            column: null, member: type.Name);

    private static string Target(string? member, Type target) =>
        member is null ? $"the requested type {ScalarTypes.Describe(target)}" : $"member '{member}' ({ScalarTypes.Describe(target)})";

    private static bool IsNull(DbDataReader reader, int ordinal)
    {
        try
        {
            return reader.IsDBNull(ordinal);
        }
        catch (Exception)
        {
            return false;
        }
    }

    private static string SafeName(DbDataReader reader, int ordinal)
    {
        try
        {
            return reader.GetName(ordinal);
        }
        catch (Exception)
        {
            return "#" + ordinal;
        }
    }

    private static string SafeDbType(DbDataReader reader, int ordinal)
    {
        try
        {
            return "database type " + reader.GetDataTypeName(ordinal);
        }
        catch (Exception)
        {
            return "database type unknown";
        }
    }

    private static string SafeFieldType(DbDataReader reader, int ordinal)
    {
        try
        {
            return reader.GetFieldType(ordinal).Name;
        }
        catch (Exception)
        {
            return "unknown";
        }
    }
}
