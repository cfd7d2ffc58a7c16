using System.ComponentModel;
using System.Data.Common;
using Orseis.Mapping;

namespace Orseis.Shapes;

/// <summary>
/// For generated code: the type of a member, constructor parameter or tuple element, with the typed column reads for it.
/// The Orseis source generator writes these; application code does not use them.
/// </summary>
[EditorBrowsable(EditorBrowsableState.Never)]
public abstract class ShapeValue
{
    private protected ShapeValue() { }

    /// <summary>The value's type.</summary>
    public abstract Type Type { get; }

    /// <summary>A value of <typeparamref name="T"/>, a type that is not <c>Nullable&lt;&gt;</c>.</summary>
    /// <typeparam name="T">The type.</typeparam>
    /// <returns>The value's reads.</returns>
    public static ShapeValue<T> Of<T>() => ShapeValue<T>.Plain;

    /// <summary>A value of <c>Nullable&lt;<typeparamref name="T"/>&gt;</c>.</summary>
    /// <typeparam name="T">The type inside <c>Nullable&lt;&gt;</c>.</typeparam>
    /// <returns>The value's reads.</returns>
    public static ShapeValue<T?> Nullable<T>() where T : struct => NullableValue<T>.Instance;

    /// <summary>The boxed read of column <paramref name="ordinal"/> (for a tuple element or parameter list).</summary>
    internal abstract ShapeColumn Bind(int ordinal, Type columnType, string? member, Layout layout, bool checkedNotNull = false);
}

/// <summary>For generated code: a <see cref="ShapeValue"/> of <typeparamref name="T"/>.</summary>
/// <typeparam name="T">The value's type.</typeparam>
[EditorBrowsable(EditorBrowsableState.Never)]
public class ShapeValue<T> : ShapeValue
{
    internal static readonly ShapeValue<T> Plain = new();

    private protected ShapeValue() { }

    /// <inheritdoc />
    public override Type Type => typeof(T);

    /// <summary>The non-NULL read, for the type without <c>Nullable</c>.</summary>
    private protected virtual Func<DbDataReader, int, T> Read(Type columnType) => ShapeReads<T>.For(columnType);

    internal override ShapeColumn Bind(int ordinal, Type columnType, string? member, Layout layout, bool checkedNotNull = false) =>
        Column(ordinal, columnType, member, layout, checkedNotNull);

    /// <summary>The guarded read of column <paramref name="ordinal"/>: NULL tested, errors explained, as compiled.</summary>
    internal ShapeColumn<T> Column(int ordinal, Type columnType, string? member, Layout layout, bool checkedNotNull = false)
    {
        ITypeHandler? handler = layout.Handlers?.For(typeof(T));
        bool acceptsNull = ColumnRules.AcceptsNull(typeof(T)) || layout.NullKeepsDefault;
        Func<DbDataReader, int, T> read = handler is null ? Read(columnType) : Handled(handler);
        return new ShapeColumn<T>(
            ordinal, read, ColumnRules.TestsNull(acceptsNull, handler is not null, checkedNotNull, layout), acceptsNull, member, handler);
    }

    private static Func<DbDataReader, int, T> Handled(ITypeHandler handler) => handler is TypeHandler<T> typed
        ? (r, i) => typed.Parse(r.GetValue(i))
        : (r, i) => (T)handler.ParseBoxed(r.GetValue(i))!;
}

/// <summary>A <c>Nullable&lt;T&gt;</c> value: the read of <typeparamref name="T"/>, wrapped.</summary>
internal sealed class NullableValue<T> : ShapeValue<T?> where T : struct
{
    public static readonly NullableValue<T> Instance = new();

    private protected override Func<DbDataReader, int, T?> Read(Type columnType)
    {
        Func<DbDataReader, int, T> core = ShapeReads<T>.For(columnType);
        return (r, i) => core(r, i);
    }
}
