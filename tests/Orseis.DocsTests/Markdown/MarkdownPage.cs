namespace Orseis.DocsTests.Markdown;

/// <summary>A fenced code block: its opening and closing lines (1-based), its info string and its content lines with
/// the opening fence's indentation removed. An unclosed fence runs to the end of the page.</summary>
internal sealed record Fence(int OpenLine, int CloseLine, string Info, IReadOnlyList<string> Content)
{
    /// <summary>The info string's first word, lower case: the block's language (empty when none is given).</summary>
    public string Language => Info.Split([' ', '\t', '{', ','], 2)[0].Trim().ToLowerInvariant();
}

/// <summary>A markdown page as the checks read it: its path from the repository root (forward slashes), its lines and
/// its fenced code blocks.</summary>
internal sealed class MarkdownPage
{
    private readonly bool[] _inFence;

    private MarkdownPage(string path, string text)
    {
        Path = path;
        Text = text.Replace("\r\n", "\n", StringComparison.Ordinal);
        Lines = Text.Split('\n');
        if (Lines.Count > 0 && Lines[^1].Length == 0 && Text.EndsWith('\n'))
            Lines = Lines.Take(Lines.Count - 1).ToArray();
        _inFence = new bool[Lines.Count + 2];
        Fences = FindFences();
        foreach (Fence fence in Fences)
        {
            for (int line = fence.OpenLine; line <= fence.CloseLine; line++)
                _inFence[line] = true;
        }
    }

    public string Path { get; }

    /// <summary>The text with line ends normalised to \n.</summary>
    public string Text { get; }

    public IReadOnlyList<string> Lines { get; }

    public IReadOnlyList<Fence> Fences { get; }

    public static MarkdownPage Parse(string path, string text) => new(path, text);

    /// <summary>Line <paramref name="line"/> (1-based) is a fence line or inside a fenced block.</summary>
    public bool InFence(int line) => line >= 1 && line <= Lines.Count && _inFence[line];

    /// <summary>The 1-based line of a character index of <see cref="Text"/>.</summary>
    public int LineOf(int index)
    {
        int line = 1;
        for (int i = 0; i < index && i < Text.Length; i++)
        {
            if (Text[i] == '\n')
                line++;
        }

        return line;
    }

    private List<Fence> FindFences()
    {
        var fences = new List<Fence>();
        for (int i = 0; i < Lines.Count; i++)
        {
            string line = Lines[i];
            int indent = line.Length - line.TrimStart(' ').Length;
            string rest = line[indent..];
            if (!rest.StartsWith("```", StringComparison.Ordinal) && !rest.StartsWith("~~~", StringComparison.Ordinal))
                continue;

            char mark = rest[0];
            int length = rest.TakeWhile(c => c == mark).Count();
            string info = rest[length..].Trim();
            if (mark == '`' && info.Contains('`', StringComparison.Ordinal))
                continue; // an inline code span, not a fence

            var content = new List<string>();
            int close = i + 1;
            for (; close < Lines.Count; close++)
            {
                string candidate = Lines[close].Trim();
                if (candidate.Length >= length && candidate.All(c => c == mark))
                    break;
                content.Add(Unindent(Lines[close], indent));
            }

            int closeLine = Math.Min(close, Lines.Count - 1) + 1;
            fences.Add(new Fence(i + 1, closeLine, info, content));
            i = close;
        }

        return fences;
    }

    private static string Unindent(string line, int indent)
    {
        int spaces = line.Length - line.TrimStart(' ').Length;
        return line[Math.Min(spaces, indent)..];
    }
}
