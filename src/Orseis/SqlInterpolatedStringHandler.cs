using System.Collections;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text;

namespace Orseis;

/// <summary>
/// Builds SQL from an interpolated string, turning every hole into a parameter: <c>$"... where id = {id}"</c> runs
/// as <c>... where id = @p0</c> with <c>@p0 = id</c>, so values are never spliced into the SQL text. A list in a hole
/// (<c>$"... where id in {ids}"</c>) becomes one parameter per element. You do not create this type yourself: the C#
/// compiler does when you pass an interpolated string to an Orseis method.
/// </summary>
[InterpolatedStringHandler]
public struct SqlInterpolatedStringHandler
{
    private readonly StringBuilder _text;
    private readonly ParameterList _parameters;

    /// <summary>Called by the compiler with the sizes of the literal text and of the holes.</summary>
    public SqlInterpolatedStringHandler(int literalLength, int formattedCount)
    {
        _text = new StringBuilder(literalLength + (formattedCount * 4));
        _parameters = new ParameterList(formattedCount);
    }

    /// <summary>Appends literal SQL text.</summary>
    public readonly void AppendLiteral(string value) => _text.Append(value);

    /// <summary>Appends a hole as a parameter (or, for a list, one parameter per element).</summary>
    public readonly void AppendFormatted<T>(T value)
    {
        if (value is IEnumerable list && ListExpansion.IsList(value))
        {
            AppendList(list, typeof(T));
            return;
        }

        _text.Append('@').Append(NextName());
        _parameters.Add(new(NextName(), value));
    }

    /// <summary>Format specifiers would have to splice text into SQL, so they are refused.</summary>
    /// <exception cref="FormatException">Always: a hole in SQL is a parameter and takes no format.</exception>
    public readonly void AppendFormatted<T>(T value, string? format)
    {
        if (format is null)
        {
            AppendFormatted(value);
            return;
        }

        throw new FormatException(
            $"The SQL hole at parameter @{NextName()} has the format ':{format}'. Holes become parameters and take no format; " +
            "format the value in C# before passing it, or pass it as it is and let the database format it.");
    }

    internal readonly string Text => _text?.ToString() ?? throw new InvalidOperationException("This SqlInterpolatedStringHandler was not created from an interpolated string.");

    internal readonly ParameterList Parameters => _parameters;

    private readonly string NextName() => "p" + _parameters.Count.ToString(CultureInfo.InvariantCulture);

    private readonly void AppendList(IEnumerable list, Type declared)
    {
        string prefix = NextName();
        _text.Append('(');
        int index = 0;
        foreach (object? element in list)
        {
            string name = prefix + "_" + index.ToString(CultureInfo.InvariantCulture);
            _text.Append(index == 0 ? "@" : ", @").Append(name);
            _parameters.Add(new(name, element));
            index++;
        }

        if (index == 0)
        {
            // An empty set: a subquery with no row, typed by a NULL of the element type (see ListExpansion).
            Type elementType = ListExpansion.ElementType(list.GetType() == typeof(object) ? declared : list.GetType());
            _text.Append("SELECT @").Append(prefix).Append(" WHERE 1 = 0");
            _parameters.Add(new(prefix, new TypedNull(elementType)));
        }

        _text.Append(')');
    }
}

/// <summary>A NULL whose type is known (the element type of an empty list), bound as a typed NULL parameter.</summary>
internal sealed record TypedNull(Type Type);
