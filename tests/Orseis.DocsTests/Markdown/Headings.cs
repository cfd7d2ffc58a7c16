using System.Text.RegularExpressions;

namespace Orseis.DocsTests.Markdown;

/// <summary>A heading of a page: its line, level and text as rendered (markup removed).</summary>
internal sealed record Heading(int Line, int Level, string Text);

/// <summary>The headings of a page outside fenced blocks: ATX (<c>## Text ##</c>) and setext (a line underlined with
/// <c>===</c> or <c>---</c>).</summary>
internal static partial class Headings
{
    public static IReadOnlyList<Heading> In(MarkdownPage page)
    {
        var headings = new List<Heading>();
        for (int line = 1; line <= page.Lines.Count; line++)
        {
            if (page.InFence(line))
                continue;
            string text = page.Lines[line - 1];
            Match atx = Atx().Match(text);
            if (atx.Success)
            {
                headings.Add(new Heading(line, atx.Groups["marks"].Length, Render(atx.Groups["text"].Value)));
                continue;
            }

            // A setext underline follows a paragraph line: not a heading, a table row or a list item (under which
            // `---` is a thematic break).
            bool previousIsText = line > 1 && !page.InFence(line - 1) && page.Lines[line - 2].Trim().Length > 0
                && !Atx().IsMatch(page.Lines[line - 2]) && !page.Lines[line - 2].TrimStart().StartsWith('|')
                && !ListItem().IsMatch(page.Lines[line - 2]);
            Match setext = Setext().Match(text);
            if (previousIsText && setext.Success)
                headings.Add(new Heading(line - 1, setext.Groups["mark"].Value == "=" ? 1 : 2, Render(page.Lines[line - 2])));
        }

        return headings;
    }

    /// <summary>A heading's markdown as GitHub renders it to text: code spans keep their content, links and images
    /// their text, HTML tags and emphasis marks go.</summary>
    public static string Render(string markdown)
    {
        var text = new System.Text.StringBuilder();
        int at = 0;
        foreach ((int start, int length) in Masking.CodeSpans(markdown))
        {
            text.Append(RenderProse(markdown[at..start]));
            text.Append(markdown.Substring(start, length).Trim('`').Trim());
            at = start + length;
        }

        text.Append(RenderProse(markdown[at..]));
        return text.ToString().Trim();
    }

    private static string RenderProse(string prose)
    {
        prose = LinkOrImage().Replace(prose, "${text}");
        prose = HtmlTag().Replace(prose, "");
        prose = prose.Replace("*", "", StringComparison.Ordinal).Replace("~~", "", StringComparison.Ordinal);
        return EmphasisUnderscore().Replace(prose, "");
    }

    [GeneratedRegex(@"^ {0,3}(?<marks>#{1,6})(?:[ \t]+(?<text>.*?))?(?:[ \t]+#+)?[ \t]*$")]
    private static partial Regex Atx();

    [GeneratedRegex(@"^ {0,3}(?<mark>=|-)\k<mark>*[ \t]*$")]
    private static partial Regex Setext();

    [GeneratedRegex(@"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")]
    private static partial Regex ListItem();

    [GeneratedRegex(@"!?\[(?<text>[^\]]*)\]\([^)]*\)")]
    private static partial Regex LinkOrImage();

    [GeneratedRegex(@"</?[A-Za-z][^>]*>")]
    private static partial Regex HtmlTag();

    [GeneratedRegex(@"(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])")]
    private static partial Regex EmphasisUnderscore();
}
