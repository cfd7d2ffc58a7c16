using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests.Checker;

/// <summary>Anchors as GitHub makes them from headings.</summary>
public sealed class GitHubSlugTests
{
    [Theory]
    [InlineData("What to choose", "what-to-choose")]
    [InlineData("`Churn`", "churn")]
    [InlineData("Pool exhausted?", "pool-exhausted")]
    [InlineData("Options (defaults), in short.", "options-defaults-in-short")]
    [InlineData("A -- B", "a----b")]
    [InlineData("`db.client.connection.use_time`", "dbclientconnectionuse_time")]
    [InlineData("[The guide](guide.md) and *emphasis* and _more_", "the-guide-and-emphasis-and-more")]
    [InlineData("Café & naïve: 2 ways", "café--naïve-2-ways")]
    [InlineData("`AddOrseis<T>` / `UseOrseisScopes()`", "addorseist--useorseisscopes")]
    public void A_heading_gives_GitHubs_anchor(string markdown, string anchor) =>
        Assert.Equal(anchor, GitHubSlug.Of(Headings.Render(markdown)));

    [Fact]
    public void Repeated_headings_get_numbered_and_explicit_anchors_count()
    {
        MarkdownPage page = MarkdownPage.Parse("docs/page.md", """
            # Example
            ## Example
            ### Example ###
            <a id="custom-anchor"></a>
            Setext heading
            --------------
            - a list item
            ---
            ```md
            # Not a heading
            ```
            """);

        Assert.Equal(
            ["custom-anchor", "example", "example-1", "example-2", "setext-heading"],
            GitHubSlug.Anchors(page).Order(StringComparer.Ordinal));
    }
}
