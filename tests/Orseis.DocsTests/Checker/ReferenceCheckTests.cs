using Orseis.Diagnostics;
using Orseis.DocsTests.Checks;
using Orseis.DocsTests.Markdown;

namespace Orseis.DocsTests.Checker;

/// <summary>The reference checks on small pages, and the members they read from the real types.</summary>
public sealed class ReferenceCheckTests
{
    [Fact]
    public void A_finding_kind_needs_a_level_two_heading_of_its_exact_name()
    {
        MarkdownPage page = MarkdownPage.Parse("docs/findings.md", """
            # Findings
            ## Churn
            ## `PoolTimeout`
            ### SlowOpen
            ## Saturation: too busy
            ```md
            ## HeldTooLong
            ```
            """);

        Assert.Equal(
            ["SlowOpen", "Saturation", "HeldTooLong"],
            ReferenceCheck.MissingHeadings(page, ["Churn", "PoolTimeout", "SlowOpen", "Saturation", "HeldTooLong"]));
    }

    [Fact]
    public void An_option_needs_its_name_in_a_code_span_alone_or_qualified()
    {
        MarkdownPage page = MarkdownPage.Parse("docs/options.md", """
            | `ReuseWaitTimeout` | 30 s |
            | `DiagnosticsOptions.ChurnGap` | 10 ms |
            PoolName in prose only, `MyChurnGapX` no.
            """);

        Assert.Equal(["PoolName"], ReferenceCheck.MissingCodeNames(page, ["ReuseWaitTimeout", "ChurnGap", "PoolName"]));
    }

    [Fact]
    public void The_settable_options_are_read_from_the_real_types()
    {
        IReadOnlyList<string> options = ReferenceTests.Settable(typeof(OrseisOptions)).ToList();
        IReadOnlyList<string> diagnostics = ReferenceTests.Settable(typeof(DiagnosticsOptions)).ToList();

        Assert.Contains("ReuseWaitTimeout", options);
        Assert.Contains("HeldTooLongThreshold", diagnostics);
        Assert.DoesNotContain("Equals", options);
    }
}
