namespace Orseis.Mapping;

/// <summary>The types read from a single column rather than mapped member by member.</summary>
internal static class ScalarTypes
{
    public static bool IsScalar(Type type)
    {
        type = Nullable.GetUnderlyingType(type) ?? type;
        return type.IsPrimitive || type.IsEnum || type == typeof(string) || type == typeof(decimal) || type == typeof(DateTime)
            || type == typeof(DateTimeOffset) || type == typeof(DateOnly) || type == typeof(TimeOnly) || type == typeof(TimeSpan)
            || type == typeof(Guid) || type == typeof(byte[]) || type == typeof(object);
    }

    public static bool IsIntegral(Type t) =>
        t == typeof(int) || t == typeof(long) || t == typeof(short) || t == typeof(byte)
        || t == typeof(sbyte) || t == typeof(ushort) || t == typeof(uint) || t == typeof(ulong);

    public static bool IsFloating(Type t) => t == typeof(double) || t == typeof(float) || t == typeof(decimal);

    /// <summary>A short type name for messages: <c>Int32</c>, <c>Nullable&lt;Int32&gt;</c>, <c>Person</c>.</summary>
    public static string Describe(Type type) =>
        Nullable.GetUnderlyingType(type) is { } inner ? $"Nullable<{inner.Name}>" : type.Name;
}
