using System.Text.RegularExpressions;

namespace Orseis.DocsTests.Markdown;

/// <summary>A link of a page: the line it starts on and its target as written.</summary>
internal sealed record Link(int Line, string Target);

/// <summary>The links of a page outside fenced blocks, HTML comments and code spans: inline links and images
/// (<c>[text](target "title")</c>, the text may wrap over lines) and reference definitions (<c>[name]: target</c>).</summary>
internal static partial class Links
{
    public static IReadOnlyList<Link> In(MarkdownPage page)
    {
        string text = Masking.WithoutCodeSpans(Masking.Rendered(page));
        return InlineLink().Matches(text).Concat(Definition().Matches(text))
            .Select(match => new Link(page.LineOf(match.Index), Unbracket(match.Groups["target"].Value)))
            .OrderBy(link => link.Line)
            .ToList();
    }

    private static string Unbracket(string target) =>
        target.StartsWith('<') && target.EndsWith('>') ? target[1..^1] : target;

    [GeneratedRegex("""!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\((?<target><[^>\n]*>|[^\s()]*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)""")]
    internal static partial Regex InlineLink();

    [GeneratedRegex(@"^ {0,3}\[[^\]\n]+\]:[ \t]*(?<target>\S+)", RegexOptions.Multiline)]
    internal static partial Regex Definition();
}
