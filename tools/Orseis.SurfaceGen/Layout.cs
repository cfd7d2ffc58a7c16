namespace Orseis.SurfaceGen;

/// <summary>Keeps generated lines within the code gate's 140 characters (tests/Orseis.Tests/CodeGate/LineLengthTests).</summary>
public static class Layout
{
    /// <summary>The longest line the code gate allows.</summary>
    public const int Width = 140;

    /// <summary>
    /// A statement or expression at <paramref name="indent"/>, wrapped when too long: the arguments of its first call
    /// one per line, each wrapped the same way.
    /// </summary>
    public static IEnumerable<string> Wrap(string code, int indent)
    {
        string pad = new(' ', indent);
        if (indent + code.Length <= Width || FirstCall(code) is not (int open, int close))
            return [pad + code];
        List<string> arguments = SplitArguments(code[(open + 1)..close]);
        var lines = new List<string> { pad + code[..(open + 1)] };
        for (int i = 0; i < arguments.Count; i++)
        {
            List<string> wrapped = [.. Wrap(arguments[i], indent + 4)];
            wrapped[^1] += i < arguments.Count - 1 ? "," : code[close..];
            lines.AddRange(wrapped);
        }

        return lines;
    }

    /// <summary>A doc comment line, wrapped at spaces outside attribute values.</summary>
    public static IEnumerable<string> WrapDoc(string line, string prefix)
    {
        var lines = new List<string>();
        string rest = line;
        while (prefix.Length + rest.Length > Width)
        {
            int cut = -1;
            bool quoted = false;
            for (int i = 0; i < rest.Length && (prefix.Length + i <= Width || cut < 0); i++)
            {
                if (rest[i] == '"')
                    quoted = !quoted;
                else if (rest[i] == ' ' && !quoted && i > 0)
                    cut = i;
            }

            if (cut < 0)
                break;
            lines.Add(prefix + rest[..cut]);
            rest = rest[(cut + 1)..];
        }

        lines.Add(prefix + rest);
        return lines;
    }

    private static (int Open, int Close)? FirstCall(string code)
    {
        int open = code.IndexOf('(', StringComparison.Ordinal);
        if (open < 0)
            return null;
        int depth = 0;
        for (int i = open; i < code.Length; i++)
        {
            if (code[i] == '(')
                depth++;
            else if (code[i] == ')' && --depth == 0)
                return (open, i);
        }

        return null;
    }

    private static List<string> SplitArguments(string text)
    {
        var arguments = new List<string>();
        int depth = 0, start = 0;
        for (int i = 0; i < text.Length; i++)
        {
            char c = text[i];
            if (c is '(' or '{' or '[' || (c == '<' && i > 0 && char.IsLetterOrDigit(text[i - 1])))
            {
                depth++;
            }
            else if (c is ')' or '}' or ']' || (c == '>' && text[i - 1] != '='))
            {
                depth--;
            }
            else if (c == ',' && depth == 0)
            {
                arguments.Add(text[start..i].Trim());
                start = i + 1;
            }
        }

        arguments.Add(text[start..].Trim());
        return arguments;
    }
}
