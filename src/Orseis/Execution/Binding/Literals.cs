using System.Collections;
using System.Data.Common;
using System.Globalization;
using System.Text;

namespace Orseis.Execution.Binding;

/// <summary>
/// Dapper's literal replacement: <c>{=name}</c> in the SQL is replaced by the argument's value written as a SQL literal,
/// for places a parameter cannot go (<c>TOP</c>, <c>LIMIT</c> on some servers, a filtered index's constant). Only
/// numbers, booleans (1 and 0), enums (their number), NULL and lists of those are written; text, dates and anything
/// else are refused, since writing them into SQL is how injection happens. The tokens are found by <see cref="SqlLexer"/>:
/// a <c>{=name}</c> in a string literal, a quoted name or a comment is left as it is.
/// </summary>
internal static class Literals
{
    /// <summary>True when <paramref name="sql"/> may hold a literal token; a plain scan, nothing allocated.</summary>
    public static bool In(string sql) => sql.Contains("{=", StringComparison.Ordinal);

    /// <summary>
    /// <paramref name="sql"/> with each <c>{=name}</c> replaced by the literal of <paramref name="args"/>' member or entry
    /// <c>name</c>; <paramref name="used"/> gets the names replaced (a list written as a literal is not also expanded).
    /// </summary>
    /// <exception cref="ArgumentException">A literal names no argument, or an argument that cannot be a literal.</exception>
    public static string Replace(string sql, object args, out HashSet<string>? used) => Replace(sql, args, SqlDialect.None, out used);

    /// <summary>
    /// As <see cref="Replace(string, object, out HashSet{string}?)"/>, reading <paramref name="sql"/> as <paramref name="dialect"/>.
    /// </summary>
    public static string Replace(string sql, object args, SqlDialect dialect, out HashSet<string>? used)
    {
        HashSet<string>? names = null;
        StringBuilder? replaced = null;
        int copied = 0;
        int at = 0;
        while (SqlLexer.NextName(sql, ref at, dialect, out SqlToken token))
        {
            if (token.Kind != SqlTokenKind.Literal)
                continue;
            string name = token.NameIn(sql).ToString();
            if (!TryFind(args, name, out object? value))
                throw Missing(name);
            (names ??= new HashSet<string>(StringComparer.OrdinalIgnoreCase)).Add(name);
            (replaced ??= new StringBuilder(sql.Length + 16)).Append(sql, copied, token.Start - copied).Append(Format(name, value));
            copied = token.End;
        }

        used = names;
        return replaced is null ? sql : replaced.Append(sql, copied, sql.Length - copied).ToString();
    }

    /// <summary>The value of the member or entry <paramref name="name"/> of <paramref name="args"/> (the exact spelling
    /// first, then ignoring case).</summary>
    private static bool TryFind(object args, string name, out object? value)
    {
        switch (args)
        {
            case ParameterBag bag:
                return bag.TryGetInput(name, out value);
            case DbParameter single:
                return Pick([new(Bare(single.ParameterName), single.Value)], name, out value);
            case IEnumerable<DbParameter> parameters:
                return Pick(parameters.Select(p => new KeyValuePair<string, object?>(Bare(p.ParameterName), p.Value)), name, out value);
            case ParameterList:
                value = null;
                return false;
            case IEnumerable<KeyValuePair<string, object?>> pairs:
                return Pick(pairs, name, out value);
            case IDictionary dictionary:
                var entries = dictionary.Keys.OfType<string>().Select(k => new KeyValuePair<string, object?>(k, dictionary[k]));
                return Pick(entries, name, out value);
            default:
                return Pick(ParameterBinder.MembersOf(args), name, out value);
        }
    }

    private static bool Pick(IEnumerable<KeyValuePair<string, object?>> entries, string name, out object? value)
    {
        bool found = false;
        value = null;
        foreach (var (key, entry) in entries)
        {
            if (string.Equals(key, name, StringComparison.Ordinal))
            {
                value = entry;
                return true;
            }

            if (!found && string.Equals(key, name, StringComparison.OrdinalIgnoreCase))
            {
                value = entry;
                found = true;
            }
        }

        return found;
    }

    private static string Bare(string name) => name.TrimStart('@', ':', '?', '$');

    /// <summary>
    /// The SQL literal of <paramref name="value"/>; negative numbers in parentheses, so <c>10-{=n}</c> never becomes a comment.
    /// </summary>
    private static string Format(string name, object? value)
    {
        CultureInfo c = CultureInfo.InvariantCulture;
        switch (value)
        {
            case null or DBNull:
                return "NULL";
            case bool b:
                return b ? "1" : "0";
            case Enum e:
                return Signed(Convert.ToDecimal(e, c).ToString(c));
            case sbyte or byte or short or ushort or int or uint or long or ulong or decimal:
                return Signed(((IFormattable)value).ToString(null, c));
            case float or double:
                double d = Convert.ToDouble(value, c);
                if (!double.IsFinite(d))
                    throw Unsupported(name, "a number that is not finite (NaN or infinity)");
                return Signed(value is float f ? f.ToString("R", c) : d.ToString("R", c));
            case IEnumerable list when ListExpansion.IsList(value):
                var text = new StringBuilder("(");
                foreach (object? element in list)
                {
                    if (element is IEnumerable and not string)
                        throw Unsupported(name, "a list of lists");
                    text.Append(text.Length == 1 ? "" : ", ").Append(Format(name, element));
                }

                // An empty list: a subquery of no rows, typed as a number (PostgreSQL will not compare a number with an untyped NULL).
                return text.Length == 1 ? "(SELECT 0 WHERE 1 = 0)" : text.Append(')').ToString();
            default:
                throw Unsupported(name, "a " + value.GetType().Name);
        }
    }

    private static string Signed(string number) => number.StartsWith('-') ? "(" + number + ")" : number;

#pragma warning disable CA2208 // the error is about the public call's 'args'
    private static ArgumentException Missing(string name) =>
        new($"The SQL has the literal {{={name}}}, but the arguments have no member or entry '{name}' to write there.",
            PublicParameters.Args);

    private static ArgumentException Unsupported(string name, string what) =>
        new($"The literal {{={name}}} is {what}: only numbers, booleans, enums, NULL and lists of them are written into the SQL as " +
            $"literals. Send it as a parameter instead (@{name}).", PublicParameters.Args);
#pragma warning restore CA2208
}
