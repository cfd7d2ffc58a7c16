using System.Text.RegularExpressions;

namespace Orseis.DocsTests.Markdown;

/// <summary>Finds the C# blocks of a page (```csharp, ```cs, ```c#) and the markers before them:
/// <c>&lt;!-- prelude: C# --&gt;</c> or <c>&lt;!-- fragment: why --&gt;</c> on the line directly before the fence (the
/// comment may start on an earlier line when it spans several).</summary>
internal static partial class CSharpBlocks
{
    private static readonly HashSet<string> Languages = ["csharp", "cs", "c#"];

    public static bool IsCSharp(Fence fence) => Languages.Contains(fence.Language);

    public static IReadOnlyList<CSharpBlock> In(MarkdownPage page)
    {
        var blocks = new List<CSharpBlock>();
        foreach (Fence fence in page.Fences.Where(IsCSharp))
        {
            Marker? marker = MarkerEndingOn(page, fence.OpenLine - 1);
            blocks.Add(new CSharpBlock(
                page.Path,
                fence.OpenLine,
                string.Join('\n', fence.Content),
                marker is { Kind: "prelude" } ? new Prelude(marker.Body, marker.Line) : null,
                marker is { Kind: "fragment" } ? marker.Body.Trim() : null));
        }

        return blocks;
    }

    /// <summary>Markers that mark nothing: not on the line directly before a C# block (a blank line between, another
    /// language, or no block at all), so the block they were meant for is compiled without them.</summary>
    public static IReadOnlyList<StrayMarker> StrayMarkers(MarkdownPage page)
    {
        var used = new HashSet<int>();
        foreach (Fence fence in page.Fences.Where(IsCSharp))
        {
            if (MarkerEndingOn(page, fence.OpenLine - 1) is { } marker)
                used.Add(marker.Line);
        }

        // Outside fenced blocks and code spans: a marker quoted in `code` (a page explaining the convention) is no marker.
        return MarkerStart().Matches(Masking.WithoutCodeSpans(Masking.WithoutFences(page)))
            .Select(match => new StrayMarker(page.Path, page.LineOf(match.Index), match.Groups["kind"].Value))
            .Where(marker => !used.Contains(marker.Line))
            .ToList();
    }

    private static Marker? MarkerEndingOn(MarkdownPage page, int line)
    {
        if (line < 1 || page.InFence(line) || !page.Lines[line - 1].TrimEnd().EndsWith("-->", StringComparison.Ordinal))
            return null;

        for (int start = line; start >= 1 && !page.InFence(start); start--)
        {
            string text = page.Lines[start - 1];
            if (start < line && text.Contains("-->", StringComparison.Ordinal))
                return null; // another comment ends above: the comment on `line` starts after it
            int open = text.IndexOf("<!--", StringComparison.Ordinal);
            if (open < 0)
                continue;

            string comment = string.Join('\n', page.Lines.Skip(start - 1).Take(line - start + 1));
            comment = comment[(comment.IndexOf("<!--", StringComparison.Ordinal) + 4)..];
            comment = comment[..comment.LastIndexOf("-->", StringComparison.Ordinal)];
            Match match = MarkerBody().Match(comment);
            return match.Success ? new Marker(match.Groups["kind"].Value, match.Groups["body"].Value, start) : null;
        }

        return null;
    }

    [GeneratedRegex(@"^\s*(?<kind>prelude|fragment)\s*:(?<body>.*)$", RegexOptions.Singleline)]
    private static partial Regex MarkerBody();

    [GeneratedRegex(@"<!--\s*(?<kind>prelude|fragment)\s*:")]
    private static partial Regex MarkerStart();

    private sealed record Marker(string Kind, string Body, int Line);
}
