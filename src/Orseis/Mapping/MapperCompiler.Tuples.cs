using System.Linq.Expressions;

namespace Orseis.Mapping;

/// <summary>Value tuples, mapped by position as Dapper maps them: column 1 to <c>Item1</c>, and so on; names are not read.</summary>
internal static partial class MapperCompiler
{
    /// <summary>
    /// <c>new ValueTuple&lt;…&gt;(column 1, column 2, …)</c>, nesting <c>TRest</c> from the eighth element on, wrapped in
    /// <c>Nullable</c> for <c>(int, string)?</c>. Columns after the last element are not read (as in Dapper); fewer columns
    /// than elements is a <see cref="MappingException"/> naming both counts, where Dapper would leave the last elements at
    /// their default.
    /// </summary>
    private static Expression ConstructTuple(Type type, Layout layout, int offset)
    {
        Type tuple = Nullable.GetUnderlyingType(type) ?? type;
        int elements = TupleElements.Flatten(tuple).Count;
        if (elements > layout.Names.Length)
        {
            throw new MappingException(
                $"The value tuple {TupleElements.Describe(tuple)} has {elements} elements, but the result has only " +
                $"{layout.Names.Length} column(s) ({string.Join(", ", layout.Names)}). A value tuple is mapped by position " +
                "(column 1 to Item1, and so on); select one column per element.",
                column: null, member: TupleElements.Describe(tuple));
        }

        int position = 0;
        Expression created = NewTuple(tuple, layout, offset, ref position);
        return tuple == type ? created : Expression.Convert(created, type);
    }

    private static NewExpression NewTuple(Type tuple, Layout layout, int offset, ref int position)
    {
        Type[] arguments = tuple.GetGenericArguments();
        bool rest = TupleElements.HasRest(tuple);
        var values = new Expression[arguments.Length];
        for (int i = 0; i < arguments.Length; i++)
        {
            if (rest && i == 7)
            {
                values[i] = NewTuple(arguments[i], layout, offset, ref position);
                continue;
            }

            values[i] = ReadColumn(offset + position, layout.Types[position], arguments[i], $"Item{position + 1}", layout);
            position++;
        }

        return Expression.New(tuple.GetConstructor(arguments)!, values);
    }
}
