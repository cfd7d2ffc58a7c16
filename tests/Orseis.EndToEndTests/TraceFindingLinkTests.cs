using System.Text.Json;
using Orseis.Trace.Monitor;
using Orseis.Trace.Report;

namespace Orseis.EndToEndTests;

/// <summary>Where <c>orseis-trace</c> prints a finding, it ends with the page that explains its kind.</summary>
public sealed class TraceFindingLinkTests
{
    private const string Page = "https://github.com/orseis/orseis/blob/main/docs/findings.md";

    [Fact]
    public void Monitor_prints_a_finding_with_its_link_and_one_of_a_kind_it_does_not_know_without()
    {
        var time = new DateTime(2026, 11, 26, 23, 0, 0);
        Assert.Equal(
            "[23:00:00.000] FINDING PoolTimeout orders: Timed out. (inUse=1) See " + Page + "#pooltimeout",
            PlainView.Finding("orders", new FindingSnapshot(time, "PoolTimeout", "Timed out.", "inUse=1")));
        Assert.Equal(
            "[23:00:00.000] FINDING NextVersionsKind orders: New. (x=1)",
            PlainView.Finding("orders", new FindingSnapshot(time, "NextVersionsKind", "New.", "x=1")));
    }

    [Fact]
    public void The_report_gives_each_finding_its_link_in_text_and_json()
    {
        var finding = new FindingReport(new DateTime(2026, 11, 26, 23, 0, 0), "ThreadPoolStarvation", "Starved.", new Dictionary<string, string>());
        Assert.Equal(new Uri(Page + "#threadpoolstarvation"), finding.HelpLink);

        using JsonDocument json = JsonDocument.Parse(JsonSerializer.Serialize(finding, MonitorCommand.Json));
        Assert.Equal(Page + "#threadpoolstarvation", json.RootElement.GetProperty("helpLink").GetString());
    }
}
