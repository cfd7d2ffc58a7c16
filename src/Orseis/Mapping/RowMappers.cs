using System.Data.Common;
using Orseis.Shapes;

namespace Orseis.Mapping;

/// <summary>
/// Chooses how the rows of one layout are mapped: <see cref="DynamicRows"/> for <c>dynamic</c>; over the type's generated
/// shape when the application registered one (<see cref="ShapeRegistry"/>); else compiled (<see cref="MapperCompiler"/>)
/// where this process may compile, or an error naming the type where it may not (Native AOT).
/// </summary>
internal static class RowMappers
{
    /// <summary>The mapper of rows of <paramref name="layout"/> to <typeparamref name="T"/>.</summary>
    /// <param name="layout">The result's columns.</param>
    /// <param name="scalar">True when <typeparamref name="T"/> is read from the first column (a scalar or a handled type).</param>
    public static Func<DbDataReader, T> For<T>(Layout layout, bool scalar)
    {
        if (DynamicRows.IsRowType(typeof(T)))
            return (Func<DbDataReader, T>)(object)DynamicRows.Mapper(layout, offset: 0, nullWhenFirstIsNull: false);
        if (!scalar && ShapeRegistry.RowMapper<T>(layout) is { } generated)
            return generated;
        if (scalar && ShapeRegistry.Scalar<T>(CompiledMapping.IsSupported) is { } value)
            return ShapeMappers.Scalar(value, layout, offset: 0);
        return CompiledMapping.IsSupported ? MapperCompiler.Compile<T>(layout, scalar) : throw CompiledMapping.NoShape(typeof(T), "rows");
    }

    /// <summary>
    /// A <c>Func&lt;DbDataReader, <paramref name="type"/>&gt;</c> over one part of a multi-mapped row: the columns of
    /// <paramref name="slice"/>, which start at <paramref name="offset"/> in the reader. When <paramref name="nullWhenFirstIsNull"/>,
    /// a NULL in the part's first column (its split column) gives <see langword="default"/>: an outer join that found nothing.
    /// </summary>
    public static Delegate Slice(Type type, Layout slice, int offset, bool scalar, bool nullWhenFirstIsNull)
    {
        if (DynamicRows.IsRowType(type))
            return DynamicRows.Mapper(slice, offset, nullWhenFirstIsNull);
        if (ShapeRegistry.Slice(type, slice, offset, scalar, nullWhenFirstIsNull) is { } generated)
            return generated;
        return CompiledMapping.IsSupported
            ? MapperCompiler.CompileSlice(type, slice, offset, scalar, nullWhenFirstIsNull)
            : throw CompiledMapping.NoShape(type, "rows");
    }
}
