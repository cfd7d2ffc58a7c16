using Orseis.DocsTests.Checks;
using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests.Checker;

/// <summary>The link check on pages held in memory.</summary>
public sealed class LinkCheckTests
{
    private static readonly Dictionary<string, string> Pages = new()
    {
        ["README.md"] = "# Orseis\n",
        ["docs/findings.md"] = "# Findings\n\n## Churn\n\n## `PoolTimeout`\n",
        ["docs/results/run.md"] = "# A run\n",
    };

    [Fact]
    public void Links_to_existing_pages_anchors_and_folders_pass()
    {
        Assert.Empty(Problems("docs/guide.md", """
            # Guide
            See [churn](findings.md#churn), [a timeout](./findings.md#pooltimeout), [the readme](../README.md),
            [the results](results/), [a run](results/run.md), [this page](#guide), [GitHub](https://github.com/x#y),
            [mail](mailto:a@b.c), ![chart](findings.md "title") and [wrapped
            text](findings.md#churn).

            [ref]: /README.md
            """));
    }

    [Fact]
    public void A_broken_anchor_is_flagged_with_its_line()
    {
        Assert.Equal(
            ["docs/guide.md:3: link (findings.md#saturation): no heading of docs/findings.md makes the anchor #saturation"],
            Problems("docs/guide.md", "# Guide\n\nSee [saturation](findings.md#saturation).\n"));
    }

    [Fact]
    public void A_missing_file_a_missing_anchor_on_the_page_and_a_climb_above_the_root_are_flagged()
    {
        IReadOnlyList<string> problems = Problems("docs/guide.md", """
            # Guide
            [gone](options.md) [here](#nowhere)
            [up](../../x.md)

            [ref]: missing.md
            """);

        Assert.Equal(
            [
                "docs/guide.md:2: link (options.md): docs/options.md does not exist",
                "docs/guide.md:2: link (#nowhere): no heading of docs/guide.md makes the anchor #nowhere",
                "docs/guide.md:3: link (../../x.md): points above the repository root",
                "docs/guide.md:5: link (missing.md): docs/missing.md does not exist",
            ],
            problems);
    }

    [Fact]
    public void Links_in_code_blocks_code_spans_and_comments_are_not_read()
    {
        Assert.Empty(Problems("docs/guide.md", """
            # Guide
            `[not a link](gone.md)` <!-- [hidden](gone.md) -->
            ```md
            [in a block](gone.md)
            ```
            """));
    }

    private static IReadOnlyList<string> Problems(string path, string markdown)
    {
        var pages = new Dictionary<string, string>(Pages) { [path] = markdown };
        return LinkCheck.Problems(MarkdownPage.Parse(path, markdown), DocTree.InMemory(pages));
    }
}
