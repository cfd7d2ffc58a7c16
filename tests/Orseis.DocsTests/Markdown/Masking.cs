using System.Text.RegularExpressions;

namespace Orseis.DocsTests.Markdown;

/// <summary>Copies of a page's text with parts a check must not read blanked out (replaced by spaces, line ends kept, so
/// an index still gives the page's line): fenced blocks, HTML comments, inline code spans, URLs.</summary>
internal static partial class Masking
{
    /// <summary>What a reader sees as text and links: fenced blocks and HTML comments blanked.</summary>
    public static string Rendered(MarkdownPage page)
    {
        char[] text = WithoutFences(page).ToCharArray();
        foreach (Match comment in HtmlComment().Matches(new string(text)))
            Blank(text, comment.Index, comment.Length);
        return new string(text);
    }

    /// <summary>Fenced blocks blanked, fence lines included.</summary>
    public static string WithoutFences(MarkdownPage page)
    {
        char[] text = page.Text.ToCharArray();
        int index = 0;
        for (int line = 1; line <= page.Lines.Count; line++)
        {
            int length = page.Lines[line - 1].Length;
            if (page.InFence(line))
                Blank(text, index, length);
            index += length + 1;
        }

        return new string(text);
    }

    /// <summary>Inline code spans blanked (CommonMark: a run of n backticks up to the next run of exactly n).</summary>
    public static string WithoutCodeSpans(string text)
    {
        char[] chars = text.ToCharArray();
        foreach ((int start, int length) in CodeSpans(text))
            Blank(chars, start, length);
        return new string(chars);
    }

    /// <summary>The inline code spans of a text: start and length, backticks included.</summary>
    public static IEnumerable<(int Start, int Length)> CodeSpans(string text)
    {
        int i = 0;
        while (i < text.Length)
        {
            if (text[i] != '`')
            {
                i++;
                continue;
            }

            int run = Run(text, i);
            int close = i + run;
            while (close < text.Length)
            {
                if (text[close] == '`')
                {
                    int closing = Run(text, close);
                    if (closing == run)
                        break;
                    close += closing;
                }
                else
                {
                    close++;
                }
            }

            if (close >= text.Length)
            {
                i += run; // no closing run: the backticks are literal
                continue;
            }

            yield return (i, close + run - i);
            i = close + run;
        }
    }

    /// <summary>URLs blanked: link and image targets, reference definitions, autolinks and bare http(s) URLs.</summary>
    public static string WithoutUrls(string text)
    {
        char[] chars = text.ToCharArray();
        foreach (Match link in Links.InlineLink().Matches(text))
            Blank(chars, link.Groups["target"].Index, link.Groups["target"].Length);
        foreach (Match definition in Links.Definition().Matches(text))
            Blank(chars, definition.Groups["target"].Index, definition.Groups["target"].Length);
        foreach (Match url in BareUrl().Matches(text))
            Blank(chars, url.Index, url.Length);
        return new string(chars);
    }

    private static int Run(string text, int start)
    {
        int end = start;
        while (end < text.Length && text[end] == '`')
            end++;
        return end - start;
    }

    private static void Blank(char[] text, int start, int length)
    {
        for (int i = start; i < start + length && i < text.Length; i++)
        {
            if (text[i] != '\n')
                text[i] = ' ';
        }
    }

    [GeneratedRegex("<!--.*?-->", RegexOptions.Singleline)]
    private static partial Regex HtmlComment();

    [GeneratedRegex(@"<?(?:https?|ftp|mailto):[^\s<>()]+>?")]
    private static partial Regex BareUrl();
}
