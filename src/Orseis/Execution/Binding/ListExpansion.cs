using System.Collections;
using System.Data.Common;
using System.Text;
using System.Text.RegularExpressions;

namespace Orseis.Execution;

/// <summary>
/// Expands a list argument into one parameter per element: <c>IN @ids</c> or <c>IN (@ids)</c> becomes
/// <c>IN (@ids0, @ids1, …)</c>. An empty list becomes <c>(SELECT @ids WHERE 1 = 0)</c> with a typed NULL, which
/// matches no row for <c>IN</c> and every row for <c>NOT IN</c>, as an empty set should.
/// </summary>
internal static class ListExpansion
{
    /// <summary>True for values sent as lists: any enumerable except strings and binary values.</summary>
    public static bool IsList(object value) => value is IEnumerable and not string and not byte[] and not char[];

    public static string Expand(DbCommand command, string sql, string name, IEnumerable values, Mapping.TypeHandlerSet? handlers = null)
    {
        // Static Regex calls share the framework's pattern cache, so a repeated list argument does not re-parse it.
        const RegexOptions Options = RegexOptions.IgnoreCase | RegexOptions.CultureInvariant;
        string pattern =
            @"\(\s*[@:?]" + Regex.Escape(name) + @"\s*\)|(?<![\p{L}\p{N}_@])[@:?]" + Regex.Escape(name) + @"(?![\p{L}\p{N}_])";
        if (!Regex.IsMatch(sql, pattern, Options))
            throw HotPathErrors.ListWithoutPlace(name);

        name = SqlNames.FindSpelling(sql, name) ?? name;
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
        return Regex.Replace(sql, pattern, replacement.Replace("$", "$$", StringComparison.Ordinal), Options);
    }

    /// <summary>The element type of a list type (<c>int</c> for <c>int[]</c> or <c>List&lt;int&gt;</c>), or object.</summary>
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
