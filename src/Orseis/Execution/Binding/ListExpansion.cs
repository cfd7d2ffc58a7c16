using System.Collections;
using System.Data.Common;
using System.Diagnostics.CodeAnalysis;
using System.Text;

namespace Orseis.Execution.Binding;

/// <summary>
/// Expands a list argument into one parameter per element: <c>IN @ids</c> or <c>IN (@ids)</c> becomes
/// <c>IN (@ids0, @ids1, …)</c>. An empty list becomes <c>(SELECT @ids WHERE 1 = 0)</c> with a typed NULL, which
/// matches no row for <c>IN</c> and every row for <c>NOT IN</c>, as an empty set should. The places are found by
/// <see cref="SqlLexer"/>: a <c>@ids</c> in a string literal, a quoted name or a comment is left as it is.
/// </summary>
internal static class ListExpansion
{
    /// <summary>True for values sent as lists: any enumerable except strings and binary values.</summary>
    public static bool IsList(object value) => value is IEnumerable and not string and not byte[] and not char[];

    public static string Expand(DbCommand command, string sql, string name, IEnumerable values, Mapping.TypeHandlerSet? handlers = null)
    {
        SqlDialect dialect = ProviderTraits.Of(command).Dialect;
        int at = 0;
        if (!NextPlace(sql, name, dialect, ref at, out int placeStart, out _, out SqlToken place))
            throw HotPathErrors.ListWithoutPlace(name);

        name = sql.Substring(place.Start + 1, place.Length - 1); // as the SQL spells it
        var text = new StringBuilder("(");
        int count = 0;
        foreach (object? value in values)
        {
            string elementName = name + count.ToString(System.Globalization.CultureInfo.InvariantCulture);
            command.Parameters.Add(ParameterBinder.Create(command, elementName, value, handlers));
            text.Append(count == 0 ? "@" : ", @").Append(elementName);
            count++;
        }

        if (count == 0)
        {
            command.Parameters.Add(ParameterBinder.CreateTypedNull(command, name, ElementType(values.GetType())));
            text.Clear().Append("(SELECT @").Append(name).Append(" WHERE 1 = 0");
        }

        string replacement = text.Append(')').ToString();
        var expanded = new StringBuilder(sql.Length + replacement.Length);
        int copied = 0;
        at = 0;
        while (NextPlace(sql, name, dialect, ref at, out placeStart, out int placeEnd, out _))
        {
            expanded.Append(sql, copied, placeStart - copied).Append(replacement);
            copied = placeEnd;
        }

        return expanded.Append(sql, copied, sql.Length - copied).ToString();
    }

    /// <summary>
    /// The next place for the list <paramref name="name"/> from <paramref name="at"/>: a parameter <c>@name</c>,
    /// <c>:name</c> or <c>?name</c> (any case), with the parentheses around it when only blanks stand between them
    /// (<c>IN (@ids)</c>), so the expansion replaces them.
    /// </summary>
    private static bool NextPlace(
        string sql, string name, SqlDialect dialect, ref int at, out int start, out int end, out SqlToken parameter)
    {
        while (SqlLexer.NextName(sql, ref at, dialect, out parameter))
        {
            if (parameter.Kind != SqlTokenKind.Parameter || sql[parameter.Start] == '$' ||
                !parameter.NameIn(sql).Equals(name, StringComparison.OrdinalIgnoreCase))
            {
                continue;
            }

            start = parameter.Start;
            end = parameter.End;
            int open = start - 1;
            while (open >= 0 && char.IsWhiteSpace(sql[open]))
                open--;
            int close = end;
            while (close < sql.Length && char.IsWhiteSpace(sql[close]))
                close++;
            if (open >= 0 && sql[open] == '(' && close < sql.Length && sql[close] == ')')
            {
                start = open;
                end = close + 1;
                at = end;
            }

            return true;
        }

        start = end = 0;
        return false;
    }

    /// <summary>The element type of a list type (<c>int</c> for <c>int[]</c> or <c>List&lt;int&gt;</c>), or object.</summary>
    [UnconditionalSuppressMessage("Trimming", "IL2070", Justification =
        "Only the element type of an empty list's typed NULL: where the trimmer removed the IEnumerable<T> " +
        "interface, the NULL is sent untyped, and it matches no row either way.")]
    public static Type ElementType(Type listType)
    {
        if (listType.IsArray)
            return listType.GetElementType()!;
        foreach (Type implemented in listType.GetInterfaces().Prepend(listType))
        {
            if (implemented.IsGenericType && implemented.GetGenericTypeDefinition() == typeof(IEnumerable<>))
                return implemented.GetGenericArguments()[0];
        }

        return typeof(object);
    }
}
