using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// A queue whose releases kept the pool short of busy although its holds were never longer than they need: the time went
/// between holds (a connection handed over, the provider's reset inside Open, the woken caller run late). When this
/// process spent little CPU on each release, that is waiting, and the pool is raised; when it spent much, the CPU is the
/// limit and it is not (the suite's saturation-burst on a loaded machine: 71 % busy, 100 ms holds, 4 ms of CPU a release).
/// </summary>
public sealed class PoolSizeBetweenHoldsTests
{
    /// <summary>Readings of a machine whose CPUs are all busy, this process taking <paramref name="cores"/> of them.</summary>
    private static PoolSizeCpu Shared(Fake fake, double cores)
    {
        long start = fake.Now;
        return new PoolSizeCpu(fake.Time, () =>
        {
            double seconds = fake.Time.GetElapsedTime(start).TotalSeconds;
            return new PoolSizeCpu.Reading(fake.Now, TimeSpan.FromSeconds(seconds * cores), (long)(seconds * 1e6), 1000 + (long)(seconds * 1e6));
        });
    }

    /// <summary>Readings of a machine whose CPUs are idle but for this process, taking <paramref name="cores"/> of them.</summary>
    private static PoolSizeCpu Idle(Fake fake, double cores)
    {
        long start = fake.Now;
        return new PoolSizeCpu(fake.Time, () =>
        {
            double seconds = fake.Time.GetElapsedTime(start).TotalSeconds;
            return new PoolSizeCpu.Reading(fake.Now, TimeSpan.FromSeconds(seconds * cores), 0, 1000 + (long)(seconds * 1e6));
        });
    }

    /// <summary>
    /// Twenty callers arrive at once at a pool of 5; four waves of five hold a connection <paramref name="holdMs"/> each,
    /// and each wave's connections reach the next five callers <paramref name="gapMs"/> after they were released.
    /// </summary>
    private static ReportFigures Burst(Fake fake, PoolSizeAdvisor advisor, double[] holdMs, double gapMs)
    {
        OpenStart[] starts = [.. Enumerable.Range(1, 20).Select(n => fake.Start(demand: n, inUse: 0))];
        foreach (OpenStart start in starts)
            advisor.OnOpenStarting(start);
        fake.Time.Advance(Fake.Ms(1));
        for (int wave = 0; wave < 4; wave++)
        {
            if (wave > 0)
                fake.Time.Advance(Fake.Ms(gapMs));
            long acquired = fake.Now;
            for (int i = wave * 5; i < wave * 5 + 5; i++)
            {
                var outcome = new OpenOutcome(fake.Time.GetElapsedTime(starts[i].Started), 0, 0, starts[i].Demand > 5);
                fake.Opened(advisor, new CompletedOpen(starts[i], outcome, fake.Now, false, TimeSpan.Zero));
            }

            TimeSpan held = Fake.Ms(holdMs[wave]);
            fake.Time.Advance(held);
            for (int i = 0; i < 5; i++)
                fake.Released(advisor, new Release(new HolderTable.Holder(acquired, "call", null, false), held, fake.Now));
        }

        var figures = new ReportFigures { Opens = 20, QueuedOpens = 15 };
        advisor.Describe(figures);
        return figures;
    }

    [Fact]
    public void Holds_no_longer_than_they_need_with_the_time_lost_between_them_waiting_are_raised()
    {
        // 100 ms holds, 70 ms between a release and the next hold: the releases kept about 60 % of the pool busy.
        var fake = new Fake();
        ReportFigures figures = Burst(fake, new PoolSizeAdvisor(fake.Log, 5, reportsFindings: true, Shared(fake, 0.02), holders: fake.Holders), [100, 100, 100, 100], 70);
        Assert.Equal(11, figures.RecommendedMaxPoolSize); // the callers' demand (1 to 20 as they arrived)
        Assert.Contains("raise Max Pool Size from 5 to 11", figures.PoolSizeAdvice, StringComparison.Ordinal);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.PoolSize));
        Assert.Matches(@"\(\d\d %\), but the holds were not longer than they need \(median (9\d|1\d\d)(\.\d+)? ms", finding.Message);
        Assert.Contains("the rest went between holds", finding.Message, StringComparison.Ordinal);
        Assert.Contains("raise Max Pool Size to 11", finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_same_gaps_with_this_process_spending_the_CPU_keep_the_current_size_and_stretched_holds_stay_a_line()
    {
        // This process taking 1.5 cores: tens of ms of CPU a release, the CPU is the limit.
        var own = new Fake();
        ReportFigures busy = Burst(own, new PoolSizeAdvisor(own.Log, 5, reportsFindings: true, Shared(own, 1.5), holders: own.Holders), [100, 100, 100, 100], 70);
        Assert.Equal(5, busy.RecommendedMaxPoolSize);
        Assert.Contains("the CPU is the limit, not the pool", busy.PoolSizeAdvice, StringComparison.Ordinal);
        Assert.Empty(own.Findings(FindingKind.PoolSize));

        // Little CPU, but holds stretched from 100 ms to 250 ms while callers queued: held longer than they need, a line.
        var stretched = new Fake();
        ReportFigures line = Burst(stretched, new PoolSizeAdvisor(stretched.Log, 5, reportsFindings: true, Shared(stretched, 0.02), holders: stretched.Holders), [100, 250, 250, 250], 0);
        Assert.Contains("the connections mostly wait", line.PoolSizeAdvice, StringComparison.Ordinal);
        Assert.Empty(stretched.Findings(FindingKind.PoolSize));
    }

    [Fact]
    public void Stretched_holds_on_CPUs_other_work_keeps_busy_with_the_connections_free_a_third_of_the_time_are_raised()
    {
        // Holds stretched from 100 ms to 250 ms, 100 ms between a release and the next hold, this process 0.02 of a core on
        // CPUs all busy (a CPU hog beside it): the releases, at their own mean hold (200 ms), took 600 of the 900 ms x 5
        // connections the callers queued for: the connections sat free a third of the time, waiting for the woken callers.
        var fake = new Fake();
        ReportFigures figures = Burst(fake, new PoolSizeAdvisor(fake.Log, 5, reportsFindings: true, Shared(fake, 0.02), holders: fake.Holders), [100, 250, 250, 250], 100);
        Assert.Equal(11, figures.RecommendedMaxPoolSize);
        Assert.Contains("raise Max Pool Size from 5 to 11", figures.PoolSizeAdvice, StringComparison.Ordinal);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.PoolSize));
        Assert.Matches(@"and the holds were stretched \(median 2\d\d(\.\d+)? ms, uncontended (9\d|1\d\d)(\.\d+)? ms\)", finding.Message);
        // The first check (10 queued: 13.75 releases/s at 0.18 s, and 1.25 connections held under way) reads exactly 0.75 of
        // the pool taken, FreeBetween itself: read from the holder table it falls just under (75 %), read from the 0.1 ms
        // units of the count the advisor kept before it fell just over, and the raise came at the next check (67 %).
        Assert.Matches(@"they took only (67|75) % of the pool: its connections sat free the rest of the time, the CPUs 100 % busy", finding.Message);
        Assert.Contains("raise Max Pool Size to 11", finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Stretched_holds_with_free_connections_stay_a_line_when_the_CPUs_are_not_busy_or_the_pool_was_taken()
    {
        // The same gaps on idle CPUs: nothing says the woken callers waited for a CPU (a server or thread pool saturated).
        var idle = new Fake();
        ReportFigures line = Burst(idle, new PoolSizeAdvisor(idle.Log, 5, reportsFindings: true, Idle(idle, 0.02), holders: idle.Holders), [100, 250, 250, 250], 100);
        Assert.Contains("connections were held longer than they need", line.PoolSizeAdvice, StringComparison.Ordinal);
        Assert.Empty(idle.Findings(FindingKind.PoolSize));

        // CPUs busy, but 20 ms between holds: the releases took 600 of 660 ms x 5 (91 %), the holds a saturated server's.
        var taken = new Fake();
        ReportFigures busy = Burst(taken, new PoolSizeAdvisor(taken.Log, 5, reportsFindings: true, Shared(taken, 0.02), holders: taken.Holders), [100, 250, 250, 250], 20);
        Assert.Contains("the connections mostly wait", busy.PoolSizeAdvice, StringComparison.Ordinal);
        Assert.Empty(taken.Findings(FindingKind.PoolSize));
    }
}
