using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// The repeated-statement detector's steady case (<see cref="RepeatedStatementDetector.Ran"/>: a streak under way counted
/// by a few field updates, without <see cref="RepeatedStatementDetector.Heard"/>) changes nothing the detector decides:
/// the same runs given to <see cref="RepeatedStatementDetector.Ran"/> and, on a second detector, to
/// <see cref="RepeatedStatementDetector.Heard"/> alone leave the same streaks after every run and report the same findings.
/// </summary>
public sealed class RepeatedStatementSteadyPathTests
{
    private static readonly string[] Texts =
    [
        "select name from items where id = @id",
        "select price from prices where item = @item",
        "update stock set n = n - 1 where item = @item",
        "select * from items order by id limit 10 offset @offset", // a paging loop
        "select rate from currencies where code = @code",
        "select 1 from audit where user = @user",
    ];

    [Theory]
    [InlineData(1, 5, false)]
    [InlineData(2, 2, false)]
    [InlineData(3, 3, false)]
    [InlineData(4, 8, false)]
    [InlineData(5, 5, true)]
    [InlineData(6, 2, true)]
    public void Ran_and_Heard_alone_keep_the_same_streaks_and_report_the_same_findings(int seed, int threshold, bool scoped)
    {
        var random = new Random(seed);
        var fast = new Fake(o => Configure(o, threshold));
        var reference = new Fake(o => Configure(o, threshold));
        using var ran = new RepeatedStatementDetector(fast.Log);
        using var heard = new RepeatedStatementDetector(reference.Log);
        var flow = new FlowState();
        var unit = new StatementRepeats(scoped);
        if (scoped)
            flow.Repeats = new StatementRepeats(scoped: true); // no owner: Ran takes it as the flow's (a scope's unit is one too)
        long lastEnd = 0;
        int steps = 0;

        for (int i = 0; i < 3000; i++)
        {
            // Mostly a loop over one or two texts, the same text object each time (a call site's literal); sometimes another
            // text, an equal text in another string, a pause past the gap, a run that overlaps the last, a failure.
            int pick = random.Next(100);
            string sql = pick < 60 ? Texts[(i / 40) % 2] : pick < 90 ? Texts[random.Next(Texts.Length)] : new string(Texts[random.Next(2)]);
            int hash = random.Next(4) == 0 ? 7 : random.Next(1, 1000);
            double pause = random.Next(20) == 0 ? 30 : random.NextDouble() * 3;
            double ms = 0.1 + (random.NextDouble() * 2);
            bool succeeded = random.Next(15) != 0;
            bool overlaps = random.Next(40) == 0;
            if (flow.Repeats is { } own)
            {
                // Set on both units alike: an open of the flow's call (its time is no pause), a call site read at a start.
                if (random.Next(50) == 0)
                    unit.LastOpenStart = own.LastOpenStart = Now(fast);
                if (random.Next(60) == 0)
                    unit.PendingSite = own.PendingSite = "site";
            }

            Advance(fast, reference, pause);
            long started = overlaps && lastEnd != 0 ? lastEnd - 10 : Now(fast);
            Advance(fast, reference, ms);
            long ended = Now(fast);
            lastEnd = ended;
            Assert.Equal(ended, Now(reference));

            ran.Ran(sql, null, flow, started, ended, succeeded, hash);
            Assert.True(unit.TryEnter());
            heard.Heard(unit, sql, started, ended, succeeded, hash);
            unit.Exit();
            Same(unit, Assert.IsType<StatementRepeats>(flow.Repeats), i);
            steps++;
        }

        Advance(fast, reference, 1000); // every streak of a flow ends: the timers report what is left
        if (scoped)
        {
            ran.OnUnitEnded(flow.Repeats!); // a scope's streaks end with it
            heard.OnUnitEnded(unit);
        }

        PoolFinding[] expected = [.. reference.Findings(FindingKind.RepeatedStatement)];
        PoolFinding[] actual = [.. fast.Findings(FindingKind.RepeatedStatement)];
        Assert.NotEmpty(expected);
        Assert.Equal(expected.Length, actual.Length);
        for (int i = 0; i < expected.Length; i++)
        {
            Assert.Equal(expected[i].FormatFigures(), actual[i].FormatFigures());
            Assert.Equal(expected[i].Message.Split(" from ")[0], actual[i].Message.Split(" from ")[0]);
        }

        Assert.Equal(3000, steps);
    }

    private static void Configure(DiagnosticsOptions options, int threshold)
    {
        options.RepeatedStatementThreshold = threshold;
        options.FindingInterval = TimeSpan.Zero;
        options.FindingsKept = 100_000;
    }

    private static long Now(Fake fake) => fake.Now;

    private static void Advance(Fake first, Fake second, double ms)
    {
        first.Time.Advance(Fake.Ms(ms));
        second.Time.Advance(Fake.Ms(ms));
    }

    /// <summary>Both units hold the same streaks, field by field (the call site aside: each detector reads its own stack).</summary>
    private static void Same(StatementRepeats expected, StatementRepeats actual, int step)
    {
        Assert.True(expected.LastEnd == actual.LastEnd, $"unit's last end at run {step}");
        Assert.True(expected.Listed == actual.Listed, $"listed at run {step}");
        Assert.True(string.Equals(expected.WantedSite, actual.WantedSite, StringComparison.Ordinal), $"wanted site at run {step}");
        Assert.True(string.Equals(expected.PendingSite, actual.PendingSite, StringComparison.Ordinal), $"pending site at run {step}");
        for (int i = 0; i < StatementRepeats.Kept; i++)
        {
            ref Streak e = ref expected.At(i);
            ref Streak a = ref actual.At(i);
            string at = $"slot {i} at run {step}";
            Assert.True(string.Equals(e.Sql, a.Sql, StringComparison.Ordinal), "text, " + at);
            Assert.True(e.Count == a.Count, $"count {e.Count} against {a.Count}, " + at);
            Assert.True(e.FirstHash == a.FirstHash && e.SameAsFirst == a.SameAsFirst, "hashes, " + at);
            Assert.True(e.FirstStart == a.FirstStart && e.LastEnd == a.LastEnd && e.Busy == a.Busy, "times, " + at);
            Assert.True(e.FirstMs.Equals(a.FirstMs) && e.Open == a.Open && e.Done == a.Done, "state, " + at);
            Assert.True((e.Site is null) == (a.Site is null), "site, " + at);
            if (e.Count >= 2 && !e.Done)
            {
                // The detail is read only while a streak is neither reported nor judged a paging loop (and kept for reuse).
                Assert.True(e.DistinctArguments() == a.DistinctArguments(), "distinct arguments, " + at);
                Assert.True(e.MedianMs().Equals(a.MedianMs()), "median, " + at);
            }
        }
    }
}
