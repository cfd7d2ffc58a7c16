using System.Globalization;

namespace Orseis.Mapping;

/// <summary>
/// Converts a non-NULL value read from a provider to the type a member or caller asked for, when the provider's own
/// type differs (SQLite's INTEGER read into an <c>int</c>, TEXT into a <c>Guid</c> or <c>DateOnly</c>, and so on).
/// Conversions that would lose data (a fraction, a time of day, an out-of-range number) fail instead. Failure
/// messages never include the value.
/// </summary>
internal static class ValueConverter
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    public static T To<T>(object value) => value is T typed ? typed : (T)ToType(value, typeof(T));

    public static object ToType(object value, Type target)
    {
        target = Nullable.GetUnderlyingType(target) ?? target;
        if (target.IsInstanceOfType(value))
            return value;
        if (target.IsEnum)
            return ToEnum(value, target);
        Type source = value.GetType();

        if (target == typeof(bool))
            return ToBoolean(value);
        if (ScalarTypes.IsIntegral(target))
            return ToIntegral(value, source, target);
        if (ScalarTypes.IsFloating(target))
            return ToFloating(value, source, target);
        // A Guid is not text: a Guid column read into a string member is a mistake in the type, not a format to choose.
        if (target == typeof(string) && value is (IFormattable and not Guid) or char or char[])
            return value is char[] chars ? new string(chars) : value is IFormattable f ? f.ToString(null, Invariant) : value.ToString()!;
        if (target == typeof(char) && value is string { Length: 1 } one)
            return one[0];

        object? converted = value switch
        {
            string s => ParseText(s, target),
            byte[] { Length: 16 } bytes when target == typeof(Guid) => new Guid(bytes),
            DateTime dt => FromDateTime(dt, target),
            DateTimeOffset dto when target == typeof(DateTime) => dto.UtcDateTime,
            TimeSpan ts when target == typeof(TimeOnly) => TimeOnly.FromTimeSpan(ts),
            TimeOnly t when target == typeof(TimeSpan) => t.ToTimeSpan(),
            DateOnly d when target == typeof(DateTime) => d.ToDateTime(TimeOnly.MinValue),
            _ => null,
        };
        return converted ?? throw NoConversion(source, target);
    }

    private static object ToEnum(object value, Type target)
    {
        if (value is string text)
        {
            if (Enum.TryParse(target, text, ignoreCase: true, out object? parsed) && Enum.IsDefined(target, parsed!))
                return parsed!;
            throw HotPathErrors.NotAnEnumName(target);
        }

        // A whole number stored as REAL or FLOAT (SQLite's only numbers with a fraction) converts as an integer would.
        Type source = value.GetType();
        if (ScalarTypes.IsIntegral(source) || IsFractional(source))
            return Enum.ToObject(target, ToIntegral(value, source, Enum.GetUnderlyingType(target)));
        throw NoConversion(source, target);
    }

    private static bool ToBoolean(object value) => value switch
    {
        string s when bool.TryParse(s, out bool b) => b,
        _ when ScalarTypes.IsIntegral(value.GetType()) => BooleanFrom(System.Convert.ToInt64(value, Invariant)),
        _ when IsFractional(value.GetType()) => BooleanFrom((long)ToIntegral(value, value.GetType(), typeof(long))),
        _ => throw NoConversion(value.GetType(), typeof(bool)),
    };

    private static bool IsFractional(Type type) => type == typeof(decimal) || ScalarTypes.IsFloating(type);

    private static object ToIntegral(object value, Type source, Type target)
    {
        if (ScalarTypes.IsIntegral(source))
            return System.Convert.ChangeType(value, target, Invariant); // checked: throws OverflowException
        if (source == typeof(decimal) || source == typeof(double) || source == typeof(float))
        {
            decimal d = System.Convert.ToDecimal(value, Invariant);
            if (decimal.Truncate(d) != d)
                throw HotPathErrors.FractionLost(source, target);
            return System.Convert.ChangeType(d, target, Invariant);
        }

        if (value is string s && decimal.TryParse(s, NumberStyles.Integer, Invariant, out decimal parsed))
            return System.Convert.ChangeType(parsed, target, Invariant);
        throw NoConversion(source, target);
    }

    private static object ToFloating(object value, Type source, Type target)
    {
        if (ScalarTypes.IsIntegral(source) || ScalarTypes.IsFloating(source))
            return System.Convert.ChangeType(value, target, Invariant);
        if (value is string s && decimal.TryParse(s, NumberStyles.Float, Invariant, out decimal parsed))
            return System.Convert.ChangeType(parsed, target, Invariant);
        throw NoConversion(source, target);
    }

    private static object? ParseText(string s, Type target)
    {
        if (target == typeof(Guid))
            return ParseGuid(s);
        if (target == typeof(DateTime))
            return ParseDateTime(s);
        if (target == typeof(DateTimeOffset))
            return ParseDateTimeOffset(s);
        if (target == typeof(DateOnly))
            return ParseDateOnly(s);
        if (target == typeof(TimeOnly))
            return ParseTimeOnly(s);
        if (target == typeof(TimeSpan))
            return ParseTimeSpan(s);
        return null;
    }

    // Typed parsers, called directly by compiled mappers when a text column (SQLite's dates, GUIDs) feeds a typed
    // member, so the value is never boxed.
    public static Guid ParseGuid(string s) => Guid.TryParse(s, out Guid g) ? g : throw Unparsable(typeof(Guid));

    public static DateTime ParseDateTime(string s) =>
        IsoDateTime.TryParse(s, out DateTime dt) || DateTime.TryParse(s, Invariant, DateTimeStyles.RoundtripKind, out dt)
            ? dt
            : throw Unparsable(typeof(DateTime));

    public static DateTimeOffset ParseDateTimeOffset(string s) =>
        DateTimeOffset.TryParse(s, Invariant, DateTimeStyles.AssumeUniversal, out DateTimeOffset dto)
            ? dto
            : throw Unparsable(typeof(DateTimeOffset));

    public static DateOnly ParseDateOnly(string s)
    {
        if (DateOnly.TryParse(s, Invariant, out DateOnly d))
            return d;
        return DateTime.TryParse(s, Invariant, DateTimeStyles.RoundtripKind, out DateTime full)
            ? (DateOnly)FromDateTime(full, typeof(DateOnly))!
            : throw Unparsable(typeof(DateOnly));
    }

    public static TimeOnly ParseTimeOnly(string s) =>
        TimeOnly.TryParse(s, Invariant, out TimeOnly t) ? t : throw Unparsable(typeof(TimeOnly));

    public static TimeSpan ParseTimeSpan(string s) =>
        TimeSpan.TryParse(s, Invariant, out TimeSpan ts) ? ts : throw Unparsable(typeof(TimeSpan));

    /// <summary>An integer column (SQLite's booleans) read as a Boolean: 0 and 1 only, anything else is an error.</summary>
    public static bool BooleanFrom(long value) => value switch
    {
        0 => false,
        1 => true,
        _ => throw new InvalidCastException("Only 0 and 1 convert to Boolean."),
    };

    private static object? FromDateTime(DateTime dt, Type target)
    {
        if (target == typeof(DateTimeOffset))
            return new DateTimeOffset(dt.Kind == DateTimeKind.Unspecified ? DateTime.SpecifyKind(dt, DateTimeKind.Utc) : dt);
        if (target == typeof(DateOnly))
        {
            return dt.TimeOfDay == TimeSpan.Zero
                ? DateOnly.FromDateTime(dt)
                : throw new InvalidCastException("The DateTime value has a time of day, which DateOnly would lose.");
        }

        if (target == typeof(TimeOnly))
            return TimeOnly.FromDateTime(dt);
        return null;
    }

    private static InvalidCastException Unparsable(Type target) =>
        new($"The text is not a valid {target.Name} in the invariant culture.");

    private static InvalidCastException NoConversion(Type source, Type target) =>
        new($"There is no conversion from {source.Name} to {target.Name}.");
}
