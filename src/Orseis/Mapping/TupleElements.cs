namespace Orseis.Mapping;

/// <summary>
/// Value tuples as result types: <c>(int Id, string Name)</c> is <c>ValueTuple&lt;int, string&gt;</c>, and from the eighth
/// element on the compiler nests the rest in its last type argument (<c>TRest</c>), as deep as the tuple is long.
/// </summary>
internal static class TupleElements
{
    private static readonly Type[] Definitions =
    [
        typeof(ValueTuple<>), typeof(ValueTuple<,>), typeof(ValueTuple<,,>), typeof(ValueTuple<,,,>),
        typeof(ValueTuple<,,,,>), typeof(ValueTuple<,,,,,>), typeof(ValueTuple<,,,,,,>), typeof(ValueTuple<,,,,,,,>),
    ];

    /// <summary>True for a <c>ValueTuple&lt;…&gt;</c> of one or more elements, or a <c>Nullable</c> of one.</summary>
    public static bool IsValueTuple(Type type)
    {
        type = Nullable.GetUnderlyingType(type) ?? type;
        return type.IsGenericType && Array.IndexOf(Definitions, type.GetGenericTypeDefinition()) >= 0;
    }

    /// <summary>True for the 8-argument form, whose last argument holds the elements after the seventh.</summary>
    public static bool HasRest(Type type) => type.GetGenericTypeDefinition() == typeof(ValueTuple<,,,,,,,>);

    /// <summary>The element types of <paramref name="type"/> in order, those nested in <c>TRest</c> included.</summary>
    public static List<Type> Flatten(Type type)
    {
        var elements = new List<Type>();
        while (true)
        {
            Type[] arguments = type.GetGenericArguments();
            if (!HasRest(type))
            {
                elements.AddRange(arguments);
                return elements;
            }

            elements.AddRange(arguments.AsSpan(0, 7));
            type = arguments[7];
        }
    }

    /// <summary><c>(Int32, String, Int32)</c>: the element types, for messages (the element names exist only at compile time).</summary>
    public static string Describe(Type type) =>
        "(" + string.Join(", ", Flatten(Nullable.GetUnderlyingType(type) ?? type).Select(ScalarTypes.Describe)) + ")";
}
