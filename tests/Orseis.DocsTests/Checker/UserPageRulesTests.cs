using Orseis.DocsTests.Checks;
using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests.Checker;

/// <summary>The user-page rules on small pages.</summary>
public sealed class UserPageRulesTests
{
    private static readonly CommitLookup Commits = CommitLookup.Of("6db2a64f00aa", "de4c2861bb00");

    [Fact]
    public void A_commit_hash_in_prose_or_a_code_span_is_flagged_known_to_git_or_not()
    {
        MarkdownPage page = Page("""
            # Overhead
            Measured at 6db2a64, and at `de4c286` against f2714a0.
            """);

        Assert.Equal(
            [
                "docs/page.md:2: commit hash 6db2a64 on a user page (a commit of this repository)",
                "docs/page.md:2: commit hash de4c286 on a user page (a commit of this repository)",
                "docs/page.md:2: commit hash f2714a0 on a user page",
            ],
            UserPageRules.CommitHashes(page, Commits));
    }

    [Fact]
    public void Other_hex_and_hashes_in_blocks_urls_and_comments_are_not_flagged()
    {
        MarkdownPage page = Page("""
            A size 0x400000, a word deadbeef, a number 1234567, a short 6db2a6, a long 6db2a64f00aa6db2a64f00aa6db2a64f00aa6db2a.
            [the run](results/run-6db2a64.md) https://github.com/o/r/commit/de4c286 <!-- 6db2a64 -->
            ```text
            commit 6db2a64
            ```
            """);

        Assert.Empty(UserPageRules.CommitHashes(page, Commits));
    }

    [Fact]
    public void A_real_commit_of_this_repository_is_found_by_git()
    {
        CommitLookup git = CommitLookup.ForRepository(DocPages.Root);
        Assert.NotSame(CommitLookup.None, git);
        string head = RunGit("rev-parse", "--short=9", "HEAD");

        Assert.Equal([head], git.Commits([head, "0123abc9"]));
    }

    [Fact]
    public void A_date_in_prose_is_flagged_and_dates_in_code_or_urls_are_not()
    {
        MarkdownPage page = Page("""
            Each ran as written on 2026-11-26.
            `where created > '2024-01-01'` and [the run](results/2026-11-26T1500Z.md)
            ```text
            2026-11-26 12:00 started
            ```
            A version 2026-13-40 is no date.
            """);

        Assert.Equal(["docs/page.md:1: dated narration (2026-11-26) on a user page"], UserPageRules.Dates(page));
    }

    [Fact]
    public void A_page_over_300_lines_is_flagged()
    {
        Assert.Null(UserPageRules.Length(Page(string.Concat(Enumerable.Repeat("line\n", 300)))));
        Assert.Equal(
            "docs/page.md: 301 lines, more than 300 for a user page",
            UserPageRules.Length(Page(string.Concat(Enumerable.Repeat("line\n", 301)))));
    }

    private static MarkdownPage Page(string markdown) => MarkdownPage.Parse("docs/page.md", markdown);

    private static string RunGit(params string[] arguments)
    {
        var start = new System.Diagnostics.ProcessStartInfo("git") { WorkingDirectory = DocPages.Root, RedirectStandardOutput = true };
        foreach (string argument in arguments)
            start.ArgumentList.Add(argument);
        using var git = System.Diagnostics.Process.Start(start)!;
        string output = git.StandardOutput.ReadToEnd().Trim();
        git.WaitForExit();
        return output;
    }
}
