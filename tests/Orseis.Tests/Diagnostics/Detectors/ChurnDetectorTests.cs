using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

public sealed class ChurnDetectorTests
{
    private static void Open(Fake fake, ChurnDetector churn, FlowState flow, OpenOutcome outcome, TimeSpan gapBefore)
    {
        fake.Time.Advance(gapBefore);
        churn.OnOpenStarting(flow, fake.Now);
        fake.Time.Advance(outcome.Elapsed);
        churn.OnOpenCompleted(flow, outcome, fake.Now);
        fake.Time.Advance(Fake.Ms(1)); // the command
        flow.Released(fake.Now);
    }

    [Fact]
    public void Back_to_back_opens_are_churn_and_the_saving_is_measured_on_warm_opens_only()
    {
        var fake = new Fake(o => o.ChurnThreshold = 10);
        var churn = new ChurnDetector(fake.Log);
        var flow = new FlowState();
        Open(fake, churn, flow, new OpenOutcome(Fake.Ms(300), 1, 300, Queued: false), TimeSpan.Zero); // cold connect: excluded
        for (int i = 0; i < 9; i++)
            Open(fake, churn, flow, new OpenOutcome(Fake.Ms(2), 0, 0, Queued: false), Fake.Ms(0.1));

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.Churn));
        Assert.Equal(10, finding.Figures["opens"]);
        Assert.Equal(9, finding.Figures["warmOpens"]);
        Assert.Equal(2, finding.Figures["meanOpenMs"], 3);
        Assert.Contains("back to back", finding.Message, StringComparison.Ordinal);
    }

    /// <summary>
    /// A reported streak keeps no warm open times for its later opens (only its report reads them): the next streak is
    /// reported from its own opens alone, as when every open kept them.
    /// </summary>
    [Fact]
    public void A_streak_that_goes_on_after_its_report_leaves_nothing_to_the_next_streaks_report()
    {
        var fake = new Fake(o =>
        {
            o.ChurnThreshold = 10;
            o.FindingInterval = TimeSpan.Zero; // both streaks reported
        });
        var churn = new ChurnDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 10; i++)
            Open(fake, churn, flow, new OpenOutcome(Fake.Ms(2), 0, 0, Queued: false), Fake.Ms(0.1));
        for (int i = 0; i < 30; i++)
            Open(fake, churn, flow, new OpenOutcome(Fake.Ms(50), 0, 0, Queued: false), Fake.Ms(0.1)); // after the report

        Open(fake, churn, flow, new OpenOutcome(Fake.Ms(0.5), 0, 0, Queued: false), TimeSpan.FromSeconds(30)); // a pause
        for (int i = 0; i < 9; i++)
            Open(fake, churn, flow, new OpenOutcome(Fake.Ms(0.5), 0, 0, Queued: false), Fake.Ms(0.1));

        PoolFinding[] findings = [.. fake.Findings(FindingKind.Churn)];
        Assert.Equal(2, findings.Length);
        Assert.Equal(2, findings[0].Figures["warmOpenMs"], 3);
        Assert.Equal(10, findings[1].Figures["opens"]);
        Assert.Equal(10, findings[1].Figures["warmOpens"]);
        Assert.Equal(0.5, findings[1].Figures["meanOpenMs"], 3);
        Assert.Equal(0.5, findings[1].Figures["warmOpenMs"], 3);
    }

    /// <summary>
    /// At process start the first warm opens also pay for compiling the code they run (on SQLite a report once priced an
    /// open at 1.139 ms whose usual cost was 0.003 ms): the saving is the median of the streak's warm opens.
    /// </summary>
    [Fact]
    public void The_saving_is_priced_on_the_median_warm_open_not_on_start_up_opens()
    {
        var fake = new Fake(o => o.ChurnThreshold = 10);
        var churn = new ChurnDetector(fake.Log);
        var flow = new FlowState();
        Open(fake, churn, flow, new OpenOutcome(Fake.Ms(12), 0, 0, Queued: false), TimeSpan.Zero); // the first, compiling
        Open(fake, churn, flow, new OpenOutcome(Fake.Ms(1.1), 0, 0, Queued: false), Fake.Ms(0.1));
        for (int i = 0; i < 8; i++)
            Open(fake, churn, flow, new OpenOutcome(Fake.Ms(0.01), 0, 0, Queued: false), Fake.Ms(0.1));

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.Churn));
        Assert.Equal(0.01, finding.Figures["warmOpenMs"], 3);
        Assert.True(finding.Figures["meanOpenMs"] > 1, finding.FormatFigures());
        Assert.Contains("A warm open costs 0.01 ms here", finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_worker_pausing_between_units_of_work_is_not_churn()
    {
        var fake = new Fake(o => o.ChurnThreshold = 10);
        var churn = new ChurnDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 100; i++)
            Open(fake, churn, flow, new OpenOutcome(Fake.Ms(1), 0, 0, Queued: false), Fake.Ms(100)); // 10 messages/s
        Assert.Empty(fake.Findings(FindingKind.Churn));
    }

    [Fact]
    public void Opens_made_while_the_flow_opens_or_holds_another_connection_are_not_back_to_back()
    {
        var fake = new Fake(o => o.ChurnThreshold = 3);
        var churn = new ChurnDetector(fake.Log);
        var flow = new FlowState();
        flow.Began(); // a forked task of the same flow is opening or holding one
        for (int i = 0; i < 10; i++)
            Open(fake, churn, flow, new OpenOutcome(Fake.Ms(1), 0, 0, Queued: false), TimeSpan.Zero);
        Assert.Empty(fake.Findings(FindingKind.Churn));
    }

    [Fact]
    public void When_every_open_queued_no_open_cost_is_claimed()
    {
        var fake = new Fake(o => o.ChurnThreshold = 5);
        var churn = new ChurnDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 5; i++)
            Open(fake, churn, flow, new OpenOutcome(Fake.Ms(250), 0, 0, Queued: true), Fake.Ms(0.1));
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.Churn));
        Assert.Equal(-1, finding.Figures["meanOpenMs"]);
        Assert.Contains("no warm open cost was measured", finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_connection_released_from_another_flow_is_given_back_to_the_flow_that_opened_it()
    {
        var fake = new Fake(o => o.Detectors = FindingKind.Churn);
        using var telemetry = new PoolTelemetry("pool", "sqlite", null, fake.Options);
        using var connection = new Microsoft.Data.Sqlite.SqliteConnection();
        telemetry.EnterFlow();
        OpenStart start = telemetry.OpenStarting(async: false);
        FlowState flow = Assert.IsType<FlowState>(start.Flow);
        fake.Time.Advance(Fake.Ms(1));
        int hold = telemetry.Acquired(connection, "a stream", openedAt: telemetry.OpenCompleted(start, connection), flow: start.Flow);
        Assert.Equal(1, flow.Active);

        // Released where no flow of its own is set (a stream disposed by code that did not open it).
        fake.Time.Advance(Fake.Ms(5));
        var other = new Thread(() => telemetry.Released(connection, hold)); // UnsafeStart: the caller's flow state does not come along
        other.UnsafeStart();
        other.Join();

        Assert.Equal(0, flow.Active);
        Assert.Equal(fake.Now, flow.LastRelease);
    }
}
