using Microsoft.Data.Sqlite;
using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

public sealed class RepeatedStatementDetectorTests
{
    private const string ById = "select name from items where id = @id";

    /// <summary>A command with one argument per value, as a call's command holds them when it ends.</summary>
    private static SqliteCommand Command(string sql, params object[] values)
    {
        var command = new SqliteCommand(sql);
        for (int i = 0; i < values.Length; i++)
            command.Parameters.AddWithValue("@p" + i, values[i]);
        return command;
    }

    /// <summary>One run of <paramref name="sql"/> in <paramref name="flow"/>: starts after <paramref name="gapBefore"/>, takes 1 ms.</summary>
    private static void Run(
        Fake fake, RepeatedStatementDetector detector, FlowState flow, string sql, object[] values, double gapBefore = 0.2,
        bool succeeded = true, double ms = 1)
    {
        fake.Time.Advance(Fake.Ms(gapBefore));
        long started = fake.Now;
        fake.Time.Advance(Fake.Ms(ms));
        detector.OnStatementEnded(new StatementRun(sql, Command(sql, values), null, flow, started, fake.Now, succeeded));
    }

    /// <summary>The streak ended: the timer's check after the gap.</summary>
    private static void Pause(Fake fake, RepeatedStatementDetector detector)
    {
        fake.Time.Advance(Fake.Ms(50));
        detector.Check();
    }

    [Theory]
    [InlineData(5)]
    [InlineData(20)]
    [InlineData(200)]
    public void A_loop_of_one_statement_with_different_arguments_is_an_N_plus_1_candidate_with_its_saving(int items)
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        Run(fake, detector, flow, "select id from items", [1]); // the "1": another statement
        for (int i = 0; i < items; i++)
            Run(fake, detector, flow, ById, [i]);
        Pause(fake, detector);

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.RepeatedStatement));
        Assert.Equal(items, finding.Figures["runs"]);
        Assert.InRange(finding.Figures["distinctArguments"], items * 0.9, items);
        Assert.Equal(1, finding.Figures["medianMs"], 3);
        Assert.Equal(items - 1, finding.Figures["savedMs"], 3);
        Assert.Equal(items, finding.Figures["busyMs"], 3);
        Assert.Equal(0, finding.Figures["scoped"]);
        Assert.StartsWith("N+1 candidate: one statement ran " + items + " times one after another on one flow", finding.Message, StringComparison.Ordinal);
        Assert.Contains($"would save {items - 1} round trips", finding.Message, StringComparison.Ordinal);
        Assert.Contains("where id in {ids}", finding.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(RepeatedStatementDetectorTests), finding.Location, StringComparison.Ordinal); // the caller
    }

    [Fact]
    public void The_same_arguments_each_time_is_a_cache_candidate()
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 6; i++)
            Run(fake, detector, flow, "select rate from currencies where code = @code", ["EUR"]);
        Pause(fake, detector);

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.RepeatedStatement));
        Assert.Equal(1, finding.Figures["distinctArguments"]);
        Assert.StartsWith("Cache candidate:", finding.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("EUR", finding.Message, StringComparison.Ordinal); // no argument value, ever
        Assert.DoesNotContain("currencies", finding.Message, StringComparison.Ordinal); // no text unless captured
    }

    [Fact]
    public void Fewer_runs_than_the_threshold_are_silent_and_the_threshold_is_a_setting()
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 4; i++)
            Run(fake, detector, flow, ById, [i]);
        Pause(fake, detector);
        Assert.Empty(fake.Findings(FindingKind.RepeatedStatement));

        var three = new Fake(o => o.RepeatedStatementThreshold = 3);
        using var lower = new RepeatedStatementDetector(three.Log);
        var other = new FlowState();
        for (int i = 0; i < 3; i++)
            Run(three, lower, other, ById, [i]);
        Pause(three, lower);
        Assert.Single(three.Findings(FindingKind.RepeatedStatement));
    }

    [Fact]
    public void A_statement_without_arguments_is_a_poll_not_a_candidate()
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 50; i++)
            Run(fake, detector, flow, "select 1", []);
        Pause(fake, detector);

        Assert.Empty(fake.Findings(FindingKind.RepeatedStatement));
        Assert.Null(flow.Repeats); // nothing was even made for it
    }

    [Theory]
    [InlineData("select * from items order by id limit @size offset @skip")]
    [InlineData("select * from items where id > @last order by id limit 100")]
    [InlineData("SELECT * FROM items ORDER BY id OFFSET @skip ROWS FETCH NEXT @size ROWS ONLY")]
    [InlineData("select top (@size) * from items where id > @last order by id")]
    public void A_paging_loop_is_silent(string sql)
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 20; i++)
            Run(fake, detector, flow, sql, [i * 100, 100]);
        Pause(fake, detector);

        Assert.Empty(fake.Findings(FindingKind.RepeatedStatement));
    }

    [Fact]
    public void A_lookup_limited_to_one_row_is_no_page()
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 5; i++)
            Run(fake, detector, flow, "select name from items where id = @id limit 1", [i]);
        Pause(fake, detector);

        Assert.Single(fake.Findings(FindingKind.RepeatedStatement));
    }

    [Fact]
    public void Failed_attempts_of_a_retry_do_not_count()
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 6; i++)
            Run(fake, detector, flow, "update stock set n = n - 1 where id = @id", [7], succeeded: false);
        Run(fake, detector, flow, "update stock set n = n - 1 where id = @id", [7]);
        Pause(fake, detector);

        Assert.Empty(fake.Findings(FindingKind.RepeatedStatement));
    }

    [Fact]
    public void A_pause_longer_than_the_gap_ends_the_streak_so_a_worker_between_messages_is_silent()
    {
        var fake = new Fake(); // gap 20 ms
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 30; i++)
            Run(fake, detector, flow, "select @worker", [1], gapBefore: 100);
        Pause(fake, detector);

        Assert.Empty(fake.Findings(FindingKind.RepeatedStatement));
    }

    [Fact]
    public void A_slow_open_before_each_run_is_no_pause_of_the_flow()
    {
        var fake = new Fake(); // gap 20 ms
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 6; i++)
        {
            // Open per call under load: the call enters Open 1 ms after the previous run, the open (a reset round trip) takes 40 ms.
            fake.Time.Advance(Fake.Ms(1));
            detector.OnOpenStarting(new OpenStart(fake.Now, 0, 1, 0, 0, Async: true, Flow: flow));
            Run(fake, detector, flow, ById, [i], gapBefore: 40);
        }

        Pause(fake, detector);
        Assert.Equal(6, Assert.Single(fake.Findings(FindingKind.RepeatedStatement)).Figures["runs"]);
    }

    [Fact]
    public void Runs_that_overlap_are_not_one_after_another()
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        long started = fake.Now;
        for (int i = 0; i < 10; i++)
        {
            // Task.WhenAll over the items: every run started before the previous one ended.
            fake.Time.Advance(Fake.Ms(1));
            detector.OnStatementEnded(new StatementRun(ById, Command(ById, i), null, flow, started, fake.Now, true));
        }

        Pause(fake, detector);
        Assert.Empty(fake.Findings(FindingKind.RepeatedStatement));
    }

    [Fact]
    public void Each_flow_is_its_own_unit_so_the_same_statement_in_concurrent_requests_is_silent()
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        FlowState[] requests = [.. Enumerable.Range(0, 16).Select(_ => new FlowState())];
        for (int round = 0; round < 2; round++)
        {
            foreach (FlowState request in requests)
                Run(fake, detector, request, ById, [round], gapBefore: 0.01);
        }

        Pause(fake, detector);
        Assert.Empty(fake.Findings(FindingKind.RepeatedStatement));
    }

    [Fact]
    public void Two_statements_per_item_are_both_followed()
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 8; i++)
        {
            Run(fake, detector, flow, ById, [i]);
            Run(fake, detector, flow, "select tag from tags where item = @id", [i]);
        }

        Pause(fake, detector);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.RepeatedStatement)); // one per interval and pool
        Assert.Equal(8, finding.Figures["runs"]);
    }

    [Fact]
    public void A_scope_that_ends_reports_its_candidate_at_once()
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        var unit = new StatementRepeats(scoped: true);
        for (int i = 0; i < 5; i++)
        {
            fake.Time.Advance(Fake.Ms(0.1));
            long started = fake.Now;
            fake.Time.Advance(Fake.Ms(2));
            var run = new StatementRun(ById, Command(ById, i), null, new FlowState { Repeats = unit }, started, fake.Now, true);
            detector.OnStatementEnded(run);
        }

        Assert.Empty(fake.Findings(FindingKind.RepeatedStatement)); // still running: nothing yet
        detector.OnUnitEnded(unit);

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.RepeatedStatement));
        Assert.Equal(1, finding.Figures["scoped"]);
        Assert.Contains("ran 5 times one after another in one scope", finding.Message, StringComparison.Ordinal);
        Assert.Contains("about 8 ms at the measured median of 2 ms", finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_scope_is_one_unit_whatever_its_pauses()
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        var unit = new StatementRepeats(scoped: true);
        var flow = new FlowState { Repeats = unit };
        for (int i = 0; i < 6; i++)
            Run(fake, detector, flow, ById, [i], gapBefore: 100); // slow work between the lookups of one request
        detector.Check();
        Assert.Empty(fake.Findings(FindingKind.RepeatedStatement)); // no gap ends a scope's streak

        detector.OnUnitEnded(unit);
        Assert.Equal(6, Assert.Single(fake.Findings(FindingKind.RepeatedStatement)).Figures["runs"]);
        Assert.False(RepeatedStatementDetector.SitesWanted && unit.WantedSite is not null);
    }

    [Fact]
    public void A_streak_still_running_after_a_second_is_reported_so_far()
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 600; i++)
            Run(fake, detector, flow, ById, [i], gapBefore: 1);

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.RepeatedStatement));
        Assert.Equal(1, finding.Figures["running"]);
        Assert.Contains("has run 501 times so far", finding.Message, StringComparison.Ordinal);
    }

    /// <summary>
    /// A streak reported while still running keeps no figures for the rest of its runs (nothing reads them before it
    /// ends), only its count and last end: it still ends at the first pause, is not reported again, and the next streak
    /// of the statement is followed from nothing, with its own runs, arguments and times.
    /// </summary>
    [Fact]
    public void A_streak_reported_while_running_is_followed_to_its_end_and_the_next_one_from_nothing()
    {
        var fake = new Fake(o => o.FindingInterval = TimeSpan.FromMilliseconds(1));
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 600; i++)
            Run(fake, detector, flow, ById, [i], gapBefore: 1);
        Pause(fake, detector);
        PoolFinding running = Assert.Single(fake.Findings(FindingKind.RepeatedStatement));
        Assert.Equal(1, running.Figures["running"]);

        for (int i = 0; i < 5; i++)
            Run(fake, detector, flow, ById, [7], gapBefore: 1, ms: 3);
        Pause(fake, detector);

        PoolFinding[] findings = [.. fake.Findings(FindingKind.RepeatedStatement)];
        Assert.Equal(2, findings.Length);
        PoolFinding next = findings[1];
        Assert.Equal(0, next.Figures["running"]);
        Assert.Equal(5, next.Figures["runs"]);
        Assert.Equal(1, next.Figures["distinctArguments"]);
        Assert.Equal(3, next.Figures["medianMs"], 3);
        Assert.Equal(15, next.Figures["busyMs"], 3);
        Assert.Equal(4 * 4 + 3, next.Figures["spanMs"], 3);
        Assert.StartsWith("Cache candidate: one statement ran 5 times", next.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_statement_is_named_only_when_command_text_may_be_captured()
    {
        var fake = new Fake(o => o.CaptureCommandText = true);
        using var detector = new RepeatedStatementDetector(fake.Log);
        var flow = new FlowState();
        for (int i = 0; i < 5; i++)
            Run(fake, detector, flow, ById, [i]);
        Pause(fake, detector);

        Assert.EndsWith("Statement: " + ById, Assert.Single(fake.Findings(FindingKind.RepeatedStatement)).Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(1, "RepeatedStatementThreshold")]
    [InlineData(0, "RepeatedStatementGap")]
    public void Bad_settings_are_refused_by_name(int value, string setting)
    {
        var options = new DiagnosticsOptions();
        if (setting == "RepeatedStatementThreshold")
            options.RepeatedStatementThreshold = value;
        else
            options.RepeatedStatementGap = TimeSpan.FromMilliseconds(value);

        ArgumentException error = Assert.Throws<ArgumentException>(options.Validate);
        Assert.Contains(setting, error.Message, StringComparison.Ordinal);
    }
}
