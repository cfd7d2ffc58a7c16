namespace Orseis.Mapping;

/// <summary>How a non-NULL column value becomes the member's type (without its <c>Nullable</c>): one decision, read by the
/// compiled mappers (<see cref="MapperCompiler"/>) and by the mappers over generated shapes (<see cref="ShapeReads{T}"/>).</summary>
internal enum ReadKind
{
    /// <summary>The provider's type is the member's: its typed getter.</summary>
    Same,

    /// <summary>An integer column into an enum: a checked conversion to the enum's underlying type.</summary>
    EnumFromIntegral,

    /// <summary>An integer into an integer or a floating type, or a double/float into a floating type: checked.</summary>
    Numeric,

    /// <summary>An integer into a Boolean: 0 and 1 only (<see cref="ValueConverter.BooleanFrom"/>).</summary>
    BooleanFromIntegral,

    /// <summary>Text into a date, time, time span or GUID: <see cref="ValueConverter"/>'s typed parser.</summary>
    ParseText,

    /// <summary>Anything else: the boxed value through <see cref="ValueConverter.To{T}"/>.</summary>
    Convert,
}

/// <summary>The column rules both kinds of mapper follow: which conversion, when NULL is tested and what it gives.</summary>
internal static class ColumnRules
{
    /// <summary>The conversion from <paramref name="columnType"/> to <paramref name="core"/> (not a <c>Nullable</c>).</summary>
    public static ReadKind Kind(Type columnType, Type core) =>
        columnType == core ? ReadKind.Same
        : core.IsEnum && ScalarTypes.IsIntegral(columnType) ? ReadKind.EnumFromIntegral
        : ScalarTypes.IsIntegral(columnType) && (ScalarTypes.IsIntegral(core) || ScalarTypes.IsFloating(core)) ? ReadKind.Numeric
        : (columnType == typeof(double) || columnType == typeof(float)) && ScalarTypes.IsFloating(core) ? ReadKind.Numeric
        : ScalarTypes.IsIntegral(columnType) && core == typeof(bool) ? ReadKind.BooleanFromIntegral
        : columnType == typeof(string) && ParsesText(core) ? ReadKind.ParseText
        : ReadKind.Convert;

    /// <summary>True for the types a text column is parsed into by a typed parser.</summary>
    public static bool ParsesText(Type core) =>
        core == typeof(DateTime) || core == typeof(DateTimeOffset) || core == typeof(DateOnly) || core == typeof(TimeOnly)
        || core == typeof(TimeSpan) || core == typeof(Guid);

    /// <summary>True when <paramref name="type"/> can hold NULL: a reference type or a <c>Nullable&lt;T&gt;</c>.</summary>
    public static bool AcceptsNull(Type type) => !type.IsValueType || Nullable.GetUnderlyingType(type) is not null;

    /// <summary>
    /// True when a read tests the column for NULL itself: not when the caller already did (<paramref name="checkedNotNull"/>),
    /// nor when the member cannot hold NULL, has no handler and the provider's typed getter refuses NULL on its own.
    /// </summary>
    public static bool TestsNull(bool acceptsNull, bool handled, bool checkedNotNull, Layout layout) =>
        !(checkedNotNull || (!acceptsNull && layout.ProviderRefusesNull && !handled));
}
