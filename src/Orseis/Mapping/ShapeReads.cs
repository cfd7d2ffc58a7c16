using System.Data.Common;
using System.Runtime.CompilerServices;

namespace Orseis.Mapping;

/// <summary>
/// A column read into <typeparamref name="T"/> (a type that is not <c>Nullable</c>) by the conversion
/// <see cref="ColumnRules.Kind"/> chooses, as a delegate instead of an expression tree: what a mapper over a generated shape
/// reads with. Instantiated by generated code for each member type, so nothing is made at run time (Native AOT). Each
/// conversion is the compiled mapper's: the same typed getter, the same checked arithmetic, the same parser, and the boxed
/// <see cref="ValueConverter"/> where the compiled mapper boxes too (and for the rare integer types, sbyte, ushort, uint
/// and ulong, whose checked conversions it performs alike).
/// </summary>
internal static class ShapeReads<T>
{
    private static readonly Func<DbDataReader, int, T> Boxed = static (r, i) => ValueConverter.To<T>(r.GetValue(i));

    /// <summary>The read of a non-NULL value of a <paramref name="columnType"/> column as <typeparamref name="T"/>.</summary>
    public static Func<DbDataReader, int, T> For(Type columnType) => ColumnRules.Kind(columnType, typeof(T)) switch
    {
        ReadKind.Same => Same(),
        ReadKind.EnumFromIntegral => Integer(columnType) is { } get ? (r, i) => Numbers.Enum<T>(get(r, i)) : Boxed,
        ReadKind.Numeric => Numeric(columnType),
        ReadKind.BooleanFromIntegral => columnType == typeof(ulong)
            ? static (r, i) => As(ValueConverter.BooleanFrom(unchecked((long)r.GetFieldValue<ulong>(i))))
            : Integer(columnType) is { } get ? (r, i) => As(ValueConverter.BooleanFrom(get(r, i))) : Boxed,
        ReadKind.ParseText => Parse(),
        _ => Boxed,
    };

    private static Func<DbDataReader, int, T> Numeric(Type columnType)
    {
        if (columnType == typeof(double))
            return static (r, i) => Numbers.FromDouble<T>(r.GetDouble(i));
        if (columnType == typeof(float))
            return static (r, i) => Numbers.FromFloat<T>(r.GetFloat(i));
        return Integer(columnType) is { } get ? (r, i) => Numbers.From<T>(get(r, i)) : Boxed;
    }

    /// <summary>An integer column read as a long (every integer type but ulong fits); null for ulong.</summary>
    private static Func<DbDataReader, int, long>? Integer(Type columnType) =>
        columnType == typeof(long) ? static (r, i) => r.GetInt64(i)
        : columnType == typeof(int) ? static (r, i) => r.GetInt32(i)
        : columnType == typeof(short) ? static (r, i) => r.GetInt16(i)
        : columnType == typeof(byte) ? static (r, i) => r.GetByte(i)
        : columnType == typeof(sbyte) ? static (r, i) => r.GetFieldValue<sbyte>(i)
        : columnType == typeof(ushort) ? static (r, i) => r.GetFieldValue<ushort>(i)
        : columnType == typeof(uint) ? static (r, i) => r.GetFieldValue<uint>(i)
        : null;

    /// <summary>The provider's typed getter, as the compiled mapper calls it.</summary>
    /// <remarks>
    /// The value types' getters are in a method of their own: every reference type shares this method's code (string, the
    /// first row type's members), where the JIT cannot drop the value types' branches, and compiles it at the first query
    /// of every process; with them here it made the largest method the JIT compiled at start (issue 44).
    /// </remarks>
    private static Func<DbDataReader, int, T> Same()
    {
        Type t = typeof(T);
        if (t.IsValueType)
            return SameValue();
        return t == typeof(string) ? static (r, i) => (T)(object)r.GetString(i)
            : t == typeof(object) ? static (r, i) => (T)r.GetValue(i)
            : static (r, i) => r.GetFieldValue<T>(i);
    }

    /// <summary><see cref="Same"/> for a value type.</summary>
    /// <remarks><c>typeof(T)</c> in each comparison, not in a local: for a value type the JIT folds each comparison even in a
    /// method's first compile, and writes the one branch that applies (issue 44).</remarks>
    private static Func<DbDataReader, int, T> SameValue() =>
        typeof(T) == typeof(int) ? static (r, i) => As(r.GetInt32(i))
        : typeof(T) == typeof(long) ? static (r, i) => As(r.GetInt64(i))
        : typeof(T) == typeof(short) ? static (r, i) => As(r.GetInt16(i))
        : typeof(T) == typeof(byte) ? static (r, i) => As(r.GetByte(i))
        : typeof(T) == typeof(bool) ? static (r, i) => As(r.GetBoolean(i))
        : typeof(T) == typeof(double) ? static (r, i) => As(r.GetDouble(i))
        : typeof(T) == typeof(float) ? static (r, i) => As(r.GetFloat(i))
        : typeof(T) == typeof(decimal) ? static (r, i) => As(r.GetDecimal(i))
        : typeof(T) == typeof(DateTime) ? static (r, i) => As(r.GetDateTime(i))
        : typeof(T) == typeof(Guid) ? static (r, i) => As(r.GetGuid(i))
        : typeof(T) == typeof(char) ? static (r, i) => As(r.GetChar(i))
        : static (r, i) => r.GetFieldValue<T>(i);

    private static Func<DbDataReader, int, T> Parse()
    {
        Type t = typeof(T);
        return t == typeof(DateTime) ? static (r, i) => As(ValueConverter.ParseDateTime(r.GetString(i)))
            : t == typeof(DateTimeOffset) ? static (r, i) => As(ValueConverter.ParseDateTimeOffset(r.GetString(i)))
            : t == typeof(DateOnly) ? static (r, i) => As(ValueConverter.ParseDateOnly(r.GetString(i)))
            : t == typeof(TimeOnly) ? static (r, i) => As(ValueConverter.ParseTimeOnly(r.GetString(i)))
            : t == typeof(TimeSpan) ? static (r, i) => As(ValueConverter.ParseTimeSpan(r.GetString(i)))
            : static (r, i) => As(ValueConverter.ParseGuid(r.GetString(i)));
    }

    /// <summary>A value of <typeparamref name="TSource"/>, which the caller has checked is <typeparamref name="T"/>, unboxed.</summary>
    private static T As<TSource>(TSource value) => Unsafe.As<TSource, T>(ref value);
}

/// <summary>The checked numeric conversions of <see cref="ShapeReads{T}"/>: <c>checked((int)value)</c> and so on, per target.</summary>
internal static class Numbers
{
    public static T From<T>(long v)
    {
        Type t = typeof(T);
        return t == typeof(int) ? As<int, T>(checked((int)v))
            : t == typeof(long) ? As<long, T>(v)
            : t == typeof(short) ? As<short, T>(checked((short)v))
            : t == typeof(byte) ? As<byte, T>(checked((byte)v))
            : t == typeof(sbyte) ? As<sbyte, T>(checked((sbyte)v))
            : t == typeof(ushort) ? As<ushort, T>(checked((ushort)v))
            : t == typeof(uint) ? As<uint, T>(checked((uint)v))
            : t == typeof(ulong) ? As<ulong, T>(checked((ulong)v))
            : t == typeof(double) ? As<double, T>(v)
            : t == typeof(float) ? As<float, T>(v)
            : As<decimal, T>(v);
    }

    public static T FromDouble<T>(double v) =>
        typeof(T) == typeof(double) ? As<double, T>(v)
        : typeof(T) == typeof(float) ? As<float, T>((float)v)
        : As<decimal, T>((decimal)v); // OverflowException when out of decimal's range, as the compiled conversion

    public static T FromFloat<T>(float v) =>
        typeof(T) == typeof(float) ? As<float, T>(v)
        : typeof(T) == typeof(double) ? As<double, T>(v)
        : As<decimal, T>((decimal)v);

    /// <summary>An integer into the enum <typeparamref name="T"/>: checked into its underlying type.</summary>
    public static T Enum<T>(long v)
    {
        Type u = System.Enum.GetUnderlyingType(typeof(T));
        return u == typeof(int) ? As<int, T>(checked((int)v))
            : u == typeof(long) ? As<long, T>(v)
            : u == typeof(short) ? As<short, T>(checked((short)v))
            : u == typeof(byte) ? As<byte, T>(checked((byte)v))
            : u == typeof(sbyte) ? As<sbyte, T>(checked((sbyte)v))
            : u == typeof(ushort) ? As<ushort, T>(checked((ushort)v))
            : u == typeof(uint) ? As<uint, T>(checked((uint)v))
            : As<ulong, T>(checked((ulong)v));
    }

    private static T As<TSource, T>(TSource value) => Unsafe.As<TSource, T>(ref value);
}
