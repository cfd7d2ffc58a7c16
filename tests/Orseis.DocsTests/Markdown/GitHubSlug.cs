using System.Text;
using System.Text.RegularExpressions;

namespace Orseis.DocsTests.Markdown;

/// <summary>GitHub's heading anchors (github-slugger): the rendered heading text in lower case, every character that is
/// not a letter, mark, digit, connector punctuation (<c>_</c>), hyphen or space dropped, each space made a hyphen; a slug
/// already taken on the page gets <c>-1</c>, <c>-2</c>, ... Explicit <c>&lt;a name|id="..."&gt;</c> anchors count too.</summary>
internal static partial class GitHubSlug
{
    public static string Of(string renderedText)
    {
        var slug = new StringBuilder(renderedText.Length);
        foreach (char c in renderedText.ToLowerInvariant())
        {
            if (c == ' ')
                slug.Append('-');
            else if (c == '-' || char.IsLetterOrDigit(c) || IsMarkOrConnector(c))
                slug.Append(c);
        }

        return slug.ToString();
    }

    /// <summary>Every anchor a page offers, in the order GitHub assigns them.</summary>
    public static IReadOnlySet<string> Anchors(MarkdownPage page)
    {
        var taken = new Dictionary<string, int>(StringComparer.Ordinal);
        var anchors = new HashSet<string>(StringComparer.Ordinal);
        foreach (Heading heading in Headings.In(page))
        {
            string slug = Of(heading.Text);
            string unique = slug;
            while (taken.ContainsKey(unique))
            {
                taken[slug]++;
                unique = $"{slug}-{taken[slug]}";
            }

            taken[unique] = 0;
            anchors.Add(unique);
        }

        foreach (Match explicitAnchor in ExplicitAnchor().Matches(Masking.Rendered(page)))
            anchors.Add(explicitAnchor.Groups["name"].Value);
        return anchors;
    }

    private static bool IsMarkOrConnector(char c) => char.GetUnicodeCategory(c) is
        System.Globalization.UnicodeCategory.NonSpacingMark or System.Globalization.UnicodeCategory.SpacingCombiningMark
        or System.Globalization.UnicodeCategory.EnclosingMark or System.Globalization.UnicodeCategory.ConnectorPunctuation;

    [GeneratedRegex("""<a\s+(?:[^>]*\s)?(?:name|id)\s*=\s*["'](?<name>[^"']+)["']""", RegexOptions.IgnoreCase)]
    private static partial Regex ExplicitAnchor();
}
