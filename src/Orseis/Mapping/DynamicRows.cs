using System.Data.Common;

namespace Orseis.Mapping;

/// <summary>
/// The mappers of <see cref="DynamicRow"/>s: for a row type of <see cref="object"/> (which is what <c>dynamic</c> compiles
/// to, as in Dapper) or <see cref="DynamicRow"/>, whole rows and the parts of a multi-mapped row. The column names are
/// read once per layout (the mapper is cached with it, as a compiled one is) and shared by every row; a row is one
/// small object and its array of values, the provider's own (DBNull as null, no type handler applied).
/// </summary>
internal static class DynamicRows
{
    public static bool IsRowType(Type type) => type == typeof(object) || type == typeof(DynamicRow);

    /// <summary>The rows of the <paramref name="layout"/>'s columns, which start at <paramref name="offset"/> in the reader.</summary>
    /// <param name="layout">The columns (a whole result, or one part of a multi-mapped row).</param>
    /// <param name="offset">The reader's ordinal of the layout's first column.</param>
    /// <param name="nullWhenFirstIsNull">A NULL in the first column gives null instead of a row (an outer join that found nothing).</param>
    public static Func<DbDataReader, DynamicRow?> Mapper(Layout layout, int offset, bool nullWhenFirstIsNull)
    {
        var columns = new RowColumns(layout.Names, layout.Handlers);
        int count = layout.Names.Length;
        return reader => nullWhenFirstIsNull && reader.IsDBNull(offset) ? null : Read(reader, columns, offset, count);
    }

    private static DynamicRow Read(DbDataReader reader, RowColumns columns, int offset, int count)
    {
        var values = new object?[count];
        int i = 0;
        try
        {
            for (; i < values.Length; i++)
            {
                object value = reader.GetValue(offset + i);
                values[i] = value is DBNull ? null : value;
            }
        }
        catch (Exception error)
        {
            throw MappingErrors.Column(error, reader, offset + i, member: null, typeof(object));
        }

        return new DynamicRow(columns, values);
    }
}
