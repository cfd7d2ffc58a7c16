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
    public void Git_names_the_commits_of_a_repository_and_a_folder_without_git_knows_none()
    {
        string folder = Path.Combine(Path.GetTempPath(), "orseis-docs-git-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(folder);
        try
        {
            Assert.Same(CommitLookup.None, CommitLookup.ForRepository(folder));
            RunGit(folder, "init", "-q");
            RunGit(folder, "-c", "user.name=docs", "-c", "user.email=docs@example.invalid", "commit", "-q", "--allow-empty", "-m", "x");
            string head = RunGit(folder, "rev-parse", "--short=9", "HEAD");

            Assert.Equal([head], CommitLookup.ForRepository(folder).Commits([head, "0123abc9"]));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
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

    private static string RunGit(string folder, params string[] arguments)
    {
        var start = new System.Diagnostics.ProcessStartInfo("git")
        {
            WorkingDirectory = folder,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (string argument in arguments)
            start.ArgumentList.Add(argument);
        using var git = System.Diagnostics.Process.Start(start)!;
        string output = git.StandardOutput.ReadToEnd().Trim();
        string error = git.StandardError.ReadToEnd();
        git.WaitForExit();
        Assert.True(git.ExitCode == 0, $"git {string.Join(' ', arguments)} failed in {folder}: {error}");
        return output;
    }
}
