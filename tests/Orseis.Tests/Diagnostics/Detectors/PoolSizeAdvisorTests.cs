using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

public sealed class PoolSizeAdvisorTests
{
    /// <summary>A steady load: <paramref name="perSecond"/> holds a second of <paramref name="holdMs"/> each, for 10 s.</summary>
    private static HoldTimes Load(Fake fake, int perSecond, double holdMs)
    {
        var holds = new HoldTimes();
        for (int i = 0; i < perSecond * 10; i++)
        {
            long acquired = fake.Now;
            fake.Time.Advance(TimeSpan.FromSeconds(1.0 / perSecond));
            holds.Record(acquired, acquired + (long)(holdMs / 1000 * fake.Time.TimestampFrequency), Fake.Ms(holdMs));
        }

        return holds;
    }

    [Fact]
    public void A_light_load_under_a_big_pool_gets_a_lower_line_never_a_finding()
    {
        var fake = new Fake();
        HoldTimes holds = Load(fake, perSecond: 100, holdMs: 20); // 2 busy
        PoolSizeAdvisor.Advice advice = new PoolSizeAdvisor(fake.Log, 100).Advise(holds, meanDemand: 2, queuedOpens: 0, opens: 1000, report: true)!;
        Assert.InRange(advice.Busy, 1.6, 2.4);
        Assert.InRange(advice.Recommended!.Value, 3, 5);
        Assert.True(advice.Lower);
        Assert.False(advice.Raise);
        Assert.Empty(fake.Log.Kept);
    }

    [Fact]
    public void Raise_advice_comes_only_when_callers_queued_and_the_finding_quotes_the_reports_number()
    {
        var fake = new Fake();
        HoldTimes holds = Load(fake, perSecond: 500, holdMs: 20); // 10 busy: the whole pool
        var advisor = new PoolSizeAdvisor(fake.Log, 10);
        PoolSizeAdvisor.Advice advice = advisor.Advise(holds, meanDemand: 24, queuedOpens: 3000, opens: 5000, report: true)!;
        Assert.True(advice.Raise);
        Assert.Equal(24, advice.Recommended);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.PoolSize));
        Assert.Equal(advice.Recommended!.Value, finding.Figures["recommended"]);
        Assert.Contains("raise Max Pool Size to 24", finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Callers_that_queued_behind_connections_held_longer_than_they_need_get_no_raise()
    {
        // The capacity study's CPU-bound load: 4 connections, holds of 0.15 ms uncontended, 4,400 releases a second while
        // 1,024 callers queued, so the releases kept 0.66 of 4 connections busy. A pool of 256 passed no more there.
        var fake = new Fake();
        HoldTimes holds = Load(fake, perSecond: 4400, holdMs: 0.15);
        PoolSizeAdvisor.Advice advice = new PoolSizeAdvisor(fake.Log, 4).Advise(holds, meanDemand: 1000, queuedOpens: 20000, opens: 44000, report: true)!;
        Assert.False(advice.Raise);
        Assert.False(advice.Lower);
        Assert.InRange(advice.HeldUp!.Value, 0.1, 0.25);
        Assert.InRange(advice.Recommended!.Value, 1, 3); // what the load keeps busy, not the 1,000 callers that waited
        Assert.Empty(fake.Log.Kept);
    }

    [Fact]
    public void The_pool_held_callers_up_when_releases_kept_it_busy_while_they_queued_whatever_the_quiet_around_it()
    {
        // A burst on a pool of 10 behind 100 ms holds, in a load that was quiet most of the time: over the whole load the
        // releases kept 5 connections busy, but while callers queued they kept all 10 busy. That pool held them up.
        var fake = new Fake();
        HoldTimes holds = Load(fake, perSecond: 50, holdMs: 100);
        var advisor = new PoolSizeAdvisor(fake.Log, 10);
        PoolSizeAdvisor.Advice advice = advisor.Advise(holds, meanDemand: 25, queuedOpens: 30, opens: 500, report: true, queuedRate: 100)!;
        Assert.Null(advice.HeldUp);
        Assert.True(advice.Raise);
        Assert.Equal(25, advice.Recommended);
        Assert.Single(fake.Findings(FindingKind.PoolSize));

        PoolSizeAdvisor.Advice slow = advisor.Advise(holds, meanDemand: 25, queuedOpens: 30, opens: 500, report: true, queuedRate: 40)!;
        Assert.InRange(slow.HeldUp!.Value, 0.3, 0.5);
        Assert.False(slow.Raise);
    }

    [Fact]
    public void A_handful_of_queued_opens_among_thousands_is_not_a_reason_to_raise()
    {
        var fake = new Fake();
        HoldTimes holds = Load(fake, perSecond: 400, holdMs: 20);
        PoolSizeAdvisor.Advice advice = new PoolSizeAdvisor(fake.Log, 10).Advise(holds, meanDemand: 8, queuedOpens: 3, opens: 4000, report: true)!;
        Assert.False(advice.Raise);
        Assert.Empty(fake.Log.Kept);
    }

    [Fact]
    public void A_load_the_thread_pool_starved_gets_no_advice_either_way()
    {
        // The cold-start study's burst: 130 callers holding 5 s each, throughput capped by starved threads. Little's law
        // on what was measured says "10 would do" of Max Pool Size 100, and "raise" once callers queued: both wrong.
        var fake = new Fake();
        long began = fake.Time.GetTimestamp();
        HoldTimes holds = Load(fake, perSecond: 2, holdMs: 5000);
        var advisor = new PoolSizeAdvisor(fake.Log, 100);
        Assert.True(advisor.Advise(holds, meanDemand: 3, queuedOpens: 0, opens: 40, report: true)!.Lower); // unstarved: "lower"

        PoolSizeAdvisor.Advice starved = advisor.Advise(holds, meanDemand: 3, queuedOpens: 0, opens: 40, report: true, lastStarved: began + 1)!;
        Assert.True(starved.Starved);
        Assert.Null(starved.Recommended);
        Assert.False(starved.Lower);
        Assert.False(advisor.Advise(holds, meanDemand: 130, queuedOpens: 30, opens: 40, report: true, lastStarved: began + 1)!.Raise);
        Assert.Empty(fake.Log.Kept);

        // Starvation before the load began does not count.
        HoldTimes later = Load(fake, perSecond: 2, holdMs: 5000);
        Assert.False(advisor.Advise(later, meanDemand: 3, queuedOpens: 0, opens: 40, report: true, lastStarved: began + 1)!.Starved);
    }
}
