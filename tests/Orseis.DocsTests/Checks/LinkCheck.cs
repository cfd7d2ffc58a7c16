using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests.Checks;

/// <summary>Every relative link of a page resolves: the file or folder exists and, when the link has a <c>#anchor</c>
/// into a markdown page (or the page itself), that page has a heading (or explicit anchor) producing it.</summary>
internal static class LinkCheck
{
    public static IReadOnlyList<string> Problems(MarkdownPage page, DocTree tree)
    {
        var problems = new List<string>();
        foreach (Link link in Links.In(page))
        {
            string? problem = Problem(page, link.Target, tree);
            if (problem is not null)
                problems.Add($"{page.Path}:{link.Line}: link ({link.Target}): {problem}");
        }

        return problems;
    }

    private static string? Problem(MarkdownPage page, string target, DocTree tree)
    {
        if (target.Length == 0)
            return "empty target";
        if (IsAbsolute(target))
            return null;

        int hash = target.IndexOf('#', StringComparison.Ordinal);
        string pathPart = Uri.UnescapeDataString(hash < 0 ? target : target[..hash]);
        string? anchor = hash < 0 ? null : Uri.UnescapeDataString(target[(hash + 1)..]);
        int query = pathPart.IndexOf('?', StringComparison.Ordinal);
        if (query >= 0)
            pathPart = pathPart[..query];

        string resolved = page.Path;
        if (pathPart.Length > 0)
        {
            string? combined = Resolve(page.Path, pathPart);
            if (combined is null)
                return "points above the repository root";
            bool isFolder = pathPart.EndsWith('/') || (!tree.FileExists(combined) && tree.DirectoryExists(combined));
            if (!isFolder && !tree.FileExists(combined))
                return $"{combined} does not exist";
            if (isFolder && !tree.DirectoryExists(combined))
                return $"folder {combined} does not exist";
            if (isFolder)
                return anchor is null ? null : $"#{anchor} points into a folder";
            resolved = combined;
        }

        if (anchor is null || !resolved.EndsWith(".md", StringComparison.OrdinalIgnoreCase))
            return null;
        MarkdownPage targetPage = tree.Page(resolved)
            ?? throw new InvalidOperationException($"{resolved} exists but cannot be read");
        return GitHubSlug.Anchors(targetPage).Contains(anchor) ? null : $"no heading of {resolved} makes the anchor #{anchor}";
    }

    private static bool IsAbsolute(string target) =>
        target.StartsWith("//", StringComparison.Ordinal) || (target.IndexOf(':', StringComparison.Ordinal) is var colon and > 0
            && target[..colon].All(c => char.IsAsciiLetterOrDigit(c) || c is '+' or '-' or '.')
            && !target[..colon].Contains('/', StringComparison.Ordinal));

    /// <summary>A link's path resolved against its page's folder ("/x" from the repository root, as GitHub does),
    /// or null when it climbs above the root.</summary>
    internal static string? Resolve(string pagePath, string linkPath)
    {
        var parts = new List<string>();
        if (!linkPath.StartsWith('/'))
            parts.AddRange(pagePath.Split('/')[..^1]);
        foreach (string part in linkPath.Split('/', StringSplitOptions.RemoveEmptyEntries))
        {
            if (part == ".")
                continue;
            if (part == "..")
            {
                if (parts.Count == 0)
                    return null;
                parts.RemoveAt(parts.Count - 1);
                continue;
            }

            parts.Add(part);
        }

        return string.Join('/', parts);
    }
}
