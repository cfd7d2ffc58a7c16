using System.Data.Common;
using System.Diagnostics.CodeAnalysis;
using System.Linq.Expressions;
using System.Reflection;

namespace Orseis.Mapping;

/// <summary>
/// Compiles a <c>Func&lt;DbDataReader, T&gt;</c> for one result layout: typed getters where the provider's type is the
/// member's, checked numeric conversions where they differ, <see cref="ValueConverter"/> otherwise. Every column read is
/// guarded so that a failure names the column, its database type, the member and the member's type. The fallback for a type
/// without a generated shape (<see cref="RowMappers"/> chooses), so it runs only where <see cref="CompiledMapping.IsSupported"/>.
/// </summary>
[RequiresDynamicCode(CompiledMapping.Needs)]
[RequiresUnreferencedCode(CompiledMapping.Needs)]
internal static partial class MapperCompiler
{
    private static readonly ParameterExpression Reader = Expression.Parameter(typeof(DbDataReader), "reader");

    /// <summary>The mapper of rows of <paramref name="layout"/> to <typeparamref name="T"/>, compiled.</summary>
    public static Func<DbDataReader, T> Compile<T>(Layout layout, bool scalar) =>
        Expression.Lambda<Func<DbDataReader, T>>(Body(typeof(T), layout, offset: 0, scalar), Reader).Compile();

    /// <summary>
    /// A <c>Func&lt;DbDataReader, <paramref name="type"/>&gt;</c> over one part of a multi-mapped row: the columns of
    /// <paramref name="slice"/>, which start at <paramref name="offset"/> in the reader. When <paramref name="nullWhenFirstIsNull"/>,
    /// a NULL in the part's first column (its split column) gives <see langword="default"/>: an outer join that found nothing.
    /// </summary>
    public static Delegate CompileSlice(Type type, Layout slice, int offset, bool scalar, bool nullWhenFirstIsNull)
    {
        Expression body = Body(type, slice, offset, scalar);
        if (nullWhenFirstIsNull)
        {
            body = Expression.Condition(IsNull(offset), Expression.Default(type), body);
        }

        return Expression.Lambda(typeof(Func<,>).MakeGenericType(typeof(DbDataReader), type), body, Reader).Compile();
    }

    // A nullable struct row (Query<Point?>) is the struct, mapped by its members, wrapped.
    private static Expression Body(Type type, Layout layout, int offset, bool scalar) =>
        scalar ? ReadColumn(offset, layout.Types[0], type, member: null, layout)
        : TupleElements.IsValueTuple(type) ? ConstructTuple(type, layout, offset)
        : Nullable.GetUnderlyingType(type) is { } inner ? Expression.Convert(Construct(inner, layout, offset), type)
        : Construct(type, layout, offset);

    /// <summary>Reads column <paramref name="ordinal"/> as <paramref name="target"/>, NULL-checked and error-guarded.</summary>
    /// <remarks>
    /// When the layout's provider refuses NULL in its typed getters and the member cannot hold NULL, the provider's own
    /// NULL check (its typed getter throws) stands in for an IsDBNull call per read; the error path then tells the NULL
    /// apart. A type with a handler is read with <see cref="DbDataReader.GetValue(int)"/> and the handler's Parse. A NULL
    /// into a type that cannot hold it throws, or gives <see langword="default"/> under <see cref="Layout.NullKeepsDefault"/>;
    /// <paramref name="checkedNotNull"/> says the caller has already tested the column for NULL.
    /// </remarks>
    private static TryExpression ReadColumn(
        int ordinal, Type columnType, Type target, string? member, Layout layout, bool checkedNotNull = false)
    {
        Expression index = Expression.Constant(ordinal);
        bool acceptsNull = ColumnRules.AcceptsNull(target) || layout.NullKeepsDefault;
        ITypeHandler? handler = layout.Handlers?.For(target);

        Expression value = handler is null ? ReadValue(index, columnType, target) : ReadHandled(index, handler, target);
        Expression whenNull = acceptsNull
            ? Expression.Default(target)
            : Expression.Throw(Expression.Call(typeof(MappingErrors), nameof(MappingErrors.NullColumn), null,
                Reader, index, Expression.Constant(member, typeof(string)), Expression.Constant(target, typeof(Type))), target);
        Expression read = ColumnRules.TestsNull(acceptsNull, handler is not null, checkedNotNull, layout)
            ? Expression.Condition(IsNull(ordinal), whenNull, value)
            : value;

        ParameterExpression error = Expression.Variable(typeof(Exception), "error");
        Expression wrap = handler is null
            ? Expression.Throw(Expression.Call(typeof(MappingErrors), nameof(MappingErrors.Column), null,
                error, Reader, index, Expression.Constant(member, typeof(string)), Expression.Constant(target, typeof(Type))), target)
            : Expression.Throw(Expression.Call(typeof(MappingErrors), nameof(MappingErrors.Handler), null,
                error, Reader, index, Expression.Constant(member, typeof(string)), Expression.Constant(target, typeof(Type)),
                Expression.Constant(handler.GetType(), typeof(Type))), target);
        return Expression.TryCatch(read, Expression.Catch(error, wrap));
    }

    /// <summary><c>reader.IsDBNull(ordinal)</c>.</summary>
    private static MethodCallExpression IsNull(int ordinal) =>
        Expression.Call(Reader, typeof(DbDataReader).GetMethod(nameof(DbDataReader.IsDBNull))!, Expression.Constant(ordinal));

    /// <summary><c>handler.Parse(reader.GetValue(index))</c>, typed: the handler's result is not boxed.</summary>
    private static Expression ReadHandled(Expression index, ITypeHandler handler, Type target)
    {
        Type handlerType = typeof(TypeHandler<>).MakeGenericType(handler.HandledType);
        Expression boxed = Expression.Call(Reader, typeof(DbDataReader).GetMethod(nameof(DbDataReader.GetValue))!, index);
        Expression parsed =
            Expression.Call(Expression.Constant(handler, handlerType), handlerType.GetMethod(nameof(TypeHandler<int>.Parse))!, boxed);
        return parsed.Type == target ? parsed : Expression.Convert(parsed, target);
    }

    private static Expression ReadValue(Expression index, Type columnType, Type target)
    {
        Type core = Nullable.GetUnderlyingType(target) ?? target;
        Expression value = ColumnRules.Kind(columnType, core) switch
        {
            ReadKind.Same => TypedGet(index, core),
            ReadKind.EnumFromIntegral =>
                Expression.Convert(Expression.ConvertChecked(TypedGet(index, columnType), Enum.GetUnderlyingType(core)), core),
            ReadKind.Numeric => Expression.ConvertChecked(TypedGet(index, columnType), core), // to decimal: OverflowException
            ReadKind.BooleanFromIntegral => Expression.Call(typeof(ValueConverter), nameof(ValueConverter.BooleanFrom), null,
                Expression.Convert(TypedGet(index, columnType), typeof(long))),
            ReadKind.ParseText => Expression.Call(TextParser(core), TypedGet(index, typeof(string))),
            _ => Expression.Call(typeof(ValueConverter), nameof(ValueConverter.To), [core],
                Expression.Call(Reader, typeof(DbDataReader).GetMethod(nameof(DbDataReader.GetValue))!, index)),
        };
        return core == target ? value : Expression.Convert(value, target);
    }

    /// <summary>The typed parser for a text column feeding <paramref name="target"/> (<see cref="ColumnRules.ParsesText"/>).</summary>
    private static MethodInfo TextParser(Type target)
    {
        string name = target switch
        {
            _ when target == typeof(DateTime) => nameof(ValueConverter.ParseDateTime),
            _ when target == typeof(DateTimeOffset) => nameof(ValueConverter.ParseDateTimeOffset),
            _ when target == typeof(DateOnly) => nameof(ValueConverter.ParseDateOnly),
            _ when target == typeof(TimeOnly) => nameof(ValueConverter.ParseTimeOnly),
            _ when target == typeof(TimeSpan) => nameof(ValueConverter.ParseTimeSpan),
            _ => nameof(ValueConverter.ParseGuid),
        };
        return typeof(ValueConverter).GetMethod(name, [typeof(string)])!;
    }

    private static MethodCallExpression TypedGet(Expression index, Type type)
    {
        string? getter = type switch
        {
            _ when type == typeof(int) => nameof(DbDataReader.GetInt32),
            _ when type == typeof(long) => nameof(DbDataReader.GetInt64),
            _ when type == typeof(short) => nameof(DbDataReader.GetInt16),
            _ when type == typeof(byte) => nameof(DbDataReader.GetByte),
            _ when type == typeof(bool) => nameof(DbDataReader.GetBoolean),
            _ when type == typeof(string) => nameof(DbDataReader.GetString),
            _ when type == typeof(double) => nameof(DbDataReader.GetDouble),
            _ when type == typeof(float) => nameof(DbDataReader.GetFloat),
            _ when type == typeof(decimal) => nameof(DbDataReader.GetDecimal),
            _ when type == typeof(DateTime) => nameof(DbDataReader.GetDateTime),
            _ when type == typeof(Guid) => nameof(DbDataReader.GetGuid),
            _ when type == typeof(char) => nameof(DbDataReader.GetChar),
            _ => null,
        };
        if (getter is not null)
            return Expression.Call(Reader, typeof(DbDataReader).GetMethod(getter, [typeof(int)])!, index);
        if (type == typeof(object))
            return Expression.Call(Reader, typeof(DbDataReader).GetMethod(nameof(DbDataReader.GetValue))!, index);
        MethodInfo generic = typeof(DbDataReader).GetMethod(nameof(DbDataReader.GetFieldValue))!.MakeGenericMethod(type);
        return Expression.Call(Reader, generic, index);
    }
}
