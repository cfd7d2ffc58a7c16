using Microsoft.Data.Sqlite;
using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// A flow's unit of the repeated-statement detector (requests without a scope): lent from the detector's table and taken
/// back by the next flow once idle longer than the gap, so a new request allocates none once the process is warm; the
/// flow that lost it starts anew, as its pause had ended its streaks anyway.
/// </summary>
public sealed class RepeatedStatementFlowUnitTests
{
    private const string ById = "select name from items where id = @id";

    private static void Run(Fake fake, RepeatedStatementDetector detector, FlowState flow, int id, double gapBefore = 0.2)
    {
        fake.Time.Advance(Fake.Ms(gapBefore));
        long started = fake.Now;
        fake.Time.Advance(Fake.Ms(1));
        var command = new SqliteCommand(ById);
        command.Parameters.AddWithValue("@id", id);
        detector.OnStatementEnded(new StatementRun(ById, command, null, flow, started, fake.Now, true));
    }

    [Fact]
    public void An_idle_flow_s_unit_serves_the_next_flow_and_a_busy_one_does_not()
    {
        var fake = new Fake();
        using var detector = new RepeatedStatementDetector(fake.Log);
        var first = new FlowState();
        Run(fake, detector, first, 1);
        StatementRepeats lent = Assert.IsType<StatementRepeats>(first.Repeats);

        // Within the gap (20 ms by default), a second flow gets a unit of its own.
        var busy = new FlowState();
        Run(fake, detector, busy, 2, gapBefore: 5);
        Assert.NotSame(lent, busy.Repeats);

        // Past the gap, the first flow's unit is idle: the next flow takes it, cleared.
        fake.Time.Advance(Fake.Ms(50));
        var next = new FlowState();
        Run(fake, detector, next, 3);
        Assert.Same(lent, next.Repeats);
        Assert.Same(next, lent.Owner);
        Assert.Equal(1, lent.At(lent.SlotOf(ById)).Count);

        // The first flow comes back: its old unit is another's now, so it gets one again and counts from its own run.
        Run(fake, detector, first, 4);
        Assert.NotSame(lent, first.Repeats);
        Assert.Equal(1, lent.At(lent.SlotOf(ById)).Count);
    }

    [Fact]
    public void Flows_one_after_another_each_report_their_own_repeats_from_reused_units()
    {
        var fake = new Fake(o => o.FindingInterval = TimeSpan.FromMilliseconds(1));
        using var detector = new RepeatedStatementDetector(fake.Log);
        StatementRepeats? previous = null;
        for (int request = 0; request < 3; request++)
        {
            var flow = new FlowState();
            for (int i = 0; i < 5; i++)
                Run(fake, detector, flow, i);
            if (previous is not null)
                Assert.Same(previous, flow.Repeats); // the last request's unit, idle since the gap passed
            previous = flow.Repeats;
            fake.Time.Advance(Fake.Ms(50));
            detector.Check(); // the gap passed: the streak is reported and the unit is idle
        }

        Assert.Equal(3, fake.Findings(FindingKind.RepeatedStatement).Count());
    }
}
