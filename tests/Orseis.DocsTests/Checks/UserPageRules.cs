using System.Text.RegularExpressions;
using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests.Checks;

/// <summary>What a user page must not carry (history belongs in docs/diagnostics-proofs.md or docs/results/): a commit
/// hash, dated narration, more than <see cref="MaxLines"/> lines.</summary>
internal static partial class UserPageRules
{
    public const int MaxLines = 300;

    /// <summary>Commit hashes outside fenced blocks, HTML comments and URLs (link targets included; code spans are read:
    /// a hash in backticks is still shown). A hash is a 7 to 40 character lower-case hex token (git prints them so) with
    /// a digit and a letter. Every such token is flagged, whether or not this clone holds the commit: a page's hashes
    /// often name commits a rewritten history no longer has, and prose has no other use for such a token (constants are
    /// written 0x..., numbers have no letters). <paramref name="lookup"/> only says which are commits of the clone.</summary>
    public static IReadOnlyList<string> CommitHashes(MarkdownPage page, CommitLookup lookup)
    {
        string text = Masking.WithoutUrls(Masking.Rendered(page));
        List<Match> hashes = HexToken().Matches(text)
            .Where(m => m.Value.Any(char.IsAsciiDigit) && m.Value.Any(char.IsAsciiLetter))
            .ToList();
        IReadOnlySet<string> commits = lookup.Commits(hashes.Select(m => m.Value).ToList());
        return hashes
            .Select(m => $"{page.Path}:{page.LineOf(m.Index)}: commit hash {m.Value} on a user page"
                + (commits.Contains(m.Value) ? " (a commit of this repository)" : ""))
            .ToList();
    }

    /// <summary>ISO dates (yyyy-mm-dd) in prose: outside fenced blocks, HTML comments, code spans and URLs.</summary>
    public static IReadOnlyList<string> Dates(MarkdownPage page)
    {
        string text = Masking.WithoutCodeSpans(Masking.WithoutUrls(Masking.Rendered(page)));
        return IsoDate().Matches(text)
            .Select(m => $"{page.Path}:{page.LineOf(m.Index)}: dated narration ({m.Value}) on a user page")
            .ToList();
    }

    public static string? Length(MarkdownPage page) => page.Lines.Count > MaxLines
        ? $"{page.Path}: {page.Lines.Count} lines, more than {MaxLines} for a user page"
        : null;

    [GeneratedRegex("(?<![0-9A-Za-z_])[0-9a-f]{7,40}(?![0-9A-Za-z_])")]
    private static partial Regex HexToken();

    [GeneratedRegex(@"(?<![\d-])(?:19|20)\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?!\d)")]
    private static partial Regex IsoDate();
}
