using Orseis.DocsTests.Checks;
using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests;

/// <summary>The repository's pages, read once per test run.</summary>
internal static class DocFiles
{
    public static DocTree Tree { get; } = DocTree.OnDisk(DocPages.Root);

    private static readonly Lazy<CommitLookup> Commits = new(() => CommitLookup.ForRepository(DocPages.Root));

    public static CommitLookup CommitLookup => Commits.Value;

    public static MarkdownPage Page(string path) =>
        Tree.Page(path) ?? throw new FileNotFoundException($"{path} does not exist under {DocPages.Root}");

    public static TheoryData<string> Rows(IEnumerable<string> values)
    {
        var rows = new TheoryData<string>();
        foreach (string value in values)
            rows.Add(value);
        return rows;
    }

    /// <summary>Fails with one line per problem (at most 40, then how many more).</summary>
    public static void AssertNone(IReadOnlyCollection<string> problems, string what)
    {
        if (problems.Count == 0)
            return;
        IEnumerable<string> shown = problems.Take(40);
        string more = problems.Count > 40 ? $"\n... and {problems.Count - 40} more" : "";
        Assert.Fail($"{problems.Count} {what}:\n{string.Join('\n', shown)}{more}");
    }
}
