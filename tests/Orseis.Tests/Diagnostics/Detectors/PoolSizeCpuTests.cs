using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// The pool-size advice on a queue the CPU bounds: a pool whose connections were held longer than they need while the
/// CPUs were busy is advised its current size (more connections add no CPU), or its callers where it is already half of
/// them (the queue removed), and one whose connections were busy at their uncontended hold (a server-bound load) is still
/// advised up, however busy the CPUs.
/// </summary>
public sealed class PoolSizeCpuTests
{
    /// <summary>Readings on <paramref name="fake"/>'s clock of a machine whose CPUs are <paramref name="busy"/> busy.</summary>
    private static PoolSizeCpu Cpu(Fake fake, double busy)
    {
        long start = fake.Now;
        return new PoolSizeCpu(fake.Time, () =>
        {
            double seconds = fake.Time.GetElapsedTime(start).TotalSeconds;
            return new PoolSizeCpu.Reading(fake.Now, TimeSpan.Zero, (long)(seconds * 1e6 * busy), 1000 + (long)(seconds * 1e6));
        });
    }

    /// <summary>
    /// Readings of a machine whose CPUs are all busy, this process taking <paramref name="cores"/> of them (CPU seconds a
    /// second).
    /// </summary>
    private static PoolSizeCpu Shared(Fake fake, double cores)
    {
        long start = fake.Now;
        return new PoolSizeCpu(fake.Time, () =>
        {
            double seconds = fake.Time.GetElapsedTime(start).TotalSeconds;
            return new PoolSizeCpu.Reading(fake.Now, TimeSpan.FromSeconds(seconds * cores), (long)(seconds * 1e6), 1000 + (long)(seconds * 1e6));
        });
    }

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
    public void A_queue_on_busy_CPUs_is_advised_the_current_size_not_the_callers_demand()
    {
        // The capacity study's CPU-bound load: 4 connections, holds of 0.15 ms uncontended, 4,400 releases a second while
        // 1,000 callers queued, so the releases kept 0.66 of 4 connections busy; the CPUs were all busy. Advising the
        // callers' demand (1,000) is what lost up to a quarter of the throughput in the sweep's short loads.
        var fake = new Fake();
        HoldTimes holds = Load(fake, perSecond: 4400, holdMs: 0.15);
        var advisor = new PoolSizeAdvisor(fake.Log, 4, holders: fake.Holders);
        PoolSizeAdvisor.Advice busy = advisor.Advise(holds, meanDemand: 1000, queuedOpens: 20000, opens: 44000, report: true, cpuBusy: 0.97)!;
        Assert.True(busy.CpuBound);
        Assert.Equal(4, busy.Recommended);
        Assert.False(busy.Raise);
        Assert.False(busy.Lower);
        Assert.Empty(fake.Log.Kept);

        // The same queue with the CPUs mostly idle: held up by something a larger pool may get round (the server, the
        // thread pool, variable work inside the hold), so the advice stays the callers' demand.
        PoolSizeAdvisor.Advice idle = advisor.Advise(holds, meanDemand: 1000, queuedOpens: 20000, opens: 44000, report: true, cpuBusy: 0.4)!;
        Assert.False(idle.CpuBound);
        Assert.Equal(1000, idle.Recommended);
        Assert.False(idle.Raise);

        // CPU unknown: as idle.
        Assert.Equal(1000, advisor.Advise(holds, meanDemand: 1000, queuedOpens: 20000, opens: 44000, report: true)!.Recommended);
    }

    [Fact]
    public void A_server_bound_queue_is_advised_up_however_busy_the_CPUs()
    {
        // 10 ms statements on a pool of 8: the releases kept all 8 busy while callers queued (the pool held them up), so
        // a busy machine does not stop the raise: the connections wait on the server, not on the CPU.
        var fake = new Fake();
        HoldTimes holds = Load(fake, perSecond: 800, holdMs: 10);
        var advisor = new PoolSizeAdvisor(fake.Log, 8, holders: fake.Holders);
        PoolSizeAdvisor.Advice advice = advisor.Advise(holds, meanDemand: 43, queuedOpens: 3000, opens: 8000, report: true, cpuBusy: 1)!;
        Assert.False(advice.CpuBound);
        Assert.Null(advice.HeldUp);
        Assert.True(advice.Raise);
        Assert.Equal(43, advice.Recommended);
        Assert.Contains("raise Max Pool Size to 43", Assert.Single(fake.Findings(FindingKind.PoolSize)).Message, StringComparison.Ordinal);
    }

    /// <summary>
    /// Twenty callers arrive at once at a pool of 5 whose connects take 1 ms; four waves of five hold a connection each,
    /// the first 100 ms (uncontended), the others <paramref name="holdMs"/>. Returns the report's figures.
    /// </summary>
    private static ReportFigures Burst(Fake fake, PoolSizeAdvisor advisor, double holdMs)
    {
        OpenStart[] starts = [.. Enumerable.Range(1, 20).Select(n => fake.Start(demand: n, inUse: 0))];
        foreach (OpenStart start in starts)
            advisor.OnOpenStarting(start);
        fake.Time.Advance(Fake.Ms(1));
        for (int wave = 0; wave < 4; wave++)
        {
            long acquired = fake.Now;
            for (int i = wave * 5; i < wave * 5 + 5; i++)
            {
                var outcome = new OpenOutcome(fake.Time.GetElapsedTime(starts[i].Started), 0, 0, starts[i].Demand > 5);
                fake.Opened(advisor, new CompletedOpen(starts[i], outcome, fake.Now, false, TimeSpan.Zero));
            }

            TimeSpan held = Fake.Ms(wave == 0 ? 100 : holdMs);
            fake.Time.Advance(held);
            for (int i = 0; i < 5; i++)
                fake.Released(advisor, new Release(new HolderTable.Holder(acquired, "call", null, false), held, fake.Now));
        }

        var figures = new ReportFigures { Opens = 20, QueuedOpens = 15 };
        advisor.Describe(figures);
        return figures;
    }

    [Fact]
    public void The_report_reads_the_CPUs_and_says_the_CPU_is_the_limit()
    {
        // Holds stretched from 100 ms to 250 ms while callers queued (40 % of the pool kept busy) on CPUs 95 % busy.
        var busy = new Fake();
        ReportFigures cpuBound = Burst(busy, new PoolSizeAdvisor(busy.Log, 5, reportsFindings: true, Cpu(busy, 0.95), holders: busy.Holders), holdMs: 250);
        Assert.Equal(5, cpuBound.RecommendedMaxPoolSize);
        Assert.Contains("the CPUs were 95 % busy: the CPU is the limit, not the pool", cpuBound.PoolSizeAdvice, StringComparison.Ordinal);
        Assert.Contains("keep Max Pool Size at 5", cpuBound.PoolSizeAdvice, StringComparison.Ordinal);
        Assert.Contains("a larger pool can still pass more, or less", cpuBound.PoolSizeAdvice, StringComparison.Ordinal);
        Assert.DoesNotContain("only lengthen", cpuBound.PoolSizeAdvice, StringComparison.Ordinal);
        Assert.Empty(busy.Findings(FindingKind.PoolSize));

        // The same on CPUs 30 % busy: the callers' demand, and the line says the CPUs were not the limit.
        var idle = new Fake();
        ReportFigures notCpu = Burst(idle, new PoolSizeAdvisor(idle.Log, 5, reportsFindings: true, Cpu(idle, 0.3), holders: idle.Holders), holdMs: 250);
        Assert.Equal(11, notCpu.RecommendedMaxPoolSize);
        Assert.Contains("the CPUs not busy", notCpu.PoolSizeAdvice, StringComparison.Ordinal);

        // Holds that stay at 100 ms (the pool held the callers up) on busy CPUs: raised.
        var bound = new Fake();
        ReportFigures raised = Burst(bound, new PoolSizeAdvisor(bound.Log, 5, reportsFindings: true, Cpu(bound, 1), holders: bound.Holders), holdMs: 100);
        Assert.Equal(11, raised.RecommendedMaxPoolSize);
        Assert.Contains("raise Max Pool Size from 5 to 11", raised.PoolSizeAdvice, StringComparison.Ordinal);
    }

    [Fact]
    public void Busy_CPUs_do_not_make_a_queue_CPU_bound_when_this_process_spends_little_CPU_on_each_release()
    {
        // The sweep's 10 ms statements on a pool of 8, on a machine other sessions kept 100 % busy: holds stretched (here
        // 100 ms to 250 ms) by the scheduler, not by this load's own CPU, which was 0.02 to 0.06 of what a connection needs
        // per release; called CPU-bound, the pool kept its size where four times it passed 2.1 to 2.9 times as much.
        // Here 0.02 cores for about 20 releases a second: 1 ms of CPU per release of the 100 ms a connection needs.
        var waits = new Fake();
        ReportFigures shared = Burst(waits, new PoolSizeAdvisor(waits.Log, 5, reportsFindings: true, Shared(waits, 0.02), holders: waits.Holders), holdMs: 250);
        Assert.Equal(11, shared.RecommendedMaxPoolSize); // the callers' demand
        Assert.Contains("the connections mostly wait", shared.PoolSizeAdvice, StringComparison.Ordinal);
        Assert.DoesNotContain("the CPU is the limit", shared.PoolSizeAdvice, StringComparison.Ordinal);
        Assert.Empty(waits.Findings(FindingKind.PoolSize)); // held longer than they need: a line, never a raise

        // The same queue with this process taking 1.5 cores: tens of ms of CPU per release, the CPU is the limit.
        var own = new Fake();
        ReportFigures busy = Burst(own, new PoolSizeAdvisor(own.Log, 5, reportsFindings: true, Shared(own, 1.5), holders: own.Holders), holdMs: 250);
        Assert.Equal(5, busy.RecommendedMaxPoolSize);
        Assert.Contains("the CPU is the limit, not the pool", busy.PoolSizeAdvice, StringComparison.Ordinal);
    }

    [Fact]
    public void What_a_connection_needs_per_release_is_what_the_fastest_holds_took_so_a_short_session_on_a_busy_machine_is_CPU_bound()
    {
        // Npgsql's short sessions (four select 1) at 64 connections on a machine other sessions kept busy: holds of 2 ms at
        // best, most stretched to tens of ms by the scheduler; this process spent 0.25 ms of CPU per release. Priced at the
        // 25th percentile the connections "mostly waited" and were advised the callers' demand, which passed 0.64 to 0.85 as
        // much. Here: 5 holds of 2 ms, 10 of 20 ms, 25 of 200 ms; 0.03 cores, about 0.8 ms of CPU per release: a tenth of
        // the 20 ms of the 25th percentile, not of the 2 ms the fastest took.
        var fake = new Fake();
        ReportFigures figures = Waves(fake, new PoolSizeAdvisor(fake.Log, 5, reportsFindings: true, Shared(fake, 0.03), holders: fake.Holders), [2, 20, 20, 200, 200, 200, 200, 200]);
        Assert.Equal(5, figures.RecommendedMaxPoolSize);
        Assert.Contains("the CPU is the limit, not the pool", figures.PoolSizeAdvice, StringComparison.Ordinal);

        // The same holds with a tenth of that CPU (0.07 ms per release, under a tenth of the fastest 2 ms): they wait.
        var waits = new Fake();
        ReportFigures waited = Waves(waits, new PoolSizeAdvisor(waits.Log, 5, reportsFindings: true, Shared(waits, 0.003), holders: waits.Holders), [2, 20, 20, 200, 200, 200, 200, 200]);
        Assert.Equal(21, waited.RecommendedMaxPoolSize); // the callers' demand (1 to 40 as they arrived: 20.5 on average)
        Assert.Matches(@"of the [12]\.\d+ ms a connection needs: the connections mostly wait", waited.PoolSizeAdvice);
    }

    [Fact]
    public void A_CPU_bound_queue_on_a_pool_already_half_its_callers_is_advised_the_callers_so_that_none_queues()
    {
        // Ten callers at once on a pool of 5 (half of them), holds stretched from 100 ms to 250 ms on CPUs 95 % busy: the
        // CPU is the limit, but the queue is what a larger pool removes (async callers of short statements at 24 of 48, 64 of
        // 128 and 80 of 160: the callers passed 1.03 to 1.27 times as much on Npgsql, 0.97 to 1.17 on MySqlConnector, at the
        // median of five rounds). A line, never a finding.
        (Fake half, ReportFigures atHalf) = OnBusyCpus([100, 250]);
        Assert.Equal(10, atHalf.RecommendedMaxPoolSize);
        string line = atHalf.PoolSizeAdvice!;
        Assert.All(
            ["the CPU is the limit, not the pool", "the pool is already half or more of the 10 callers",
             "raise Max Pool Size from 5 to 10, the size at which none queues"],
            said => Assert.Contains(said, line, StringComparison.Ordinal));
        Assert.DoesNotContain("keep Max Pool Size", line, StringComparison.Ordinal);
        Assert.Empty(half.Findings(FindingKind.PoolSize));

        // Fifteen callers on the same pool (a third of them): the size is kept (Npgsql sessions at 16 of 128 kept 0.78 to
        // 0.89 of the throughput when given the callers).
        ReportFigures atThird = OnBusyCpus([100, 250, 250]).Figures;
        Assert.Equal(5, atThird.RecommendedMaxPoolSize);
        Assert.Contains("keep Max Pool Size at 5", atThird.PoolSizeAdvice, StringComparison.Ordinal);
    }

    /// <summary><see cref="Waves"/> on a pool of 5 whose CPUs were 95 % busy.</summary>
    private static (Fake Fake, ReportFigures Figures) OnBusyCpus(double[] holdsMs)
    {
        var fake = new Fake();
        return (fake, Waves(fake, new PoolSizeAdvisor(fake.Log, 5, reportsFindings: true, Cpu(fake, 0.95), holders: fake.Holders), holdsMs));
    }

    /// <summary>
    /// 5 x <paramref name="holdsMs"/>'s length callers on a pool of 5, all arriving at once; each wave of five holds its
    /// connections for the wave's time, then the next five take them.
    /// </summary>
    private static ReportFigures Waves(Fake fake, PoolSizeAdvisor advisor, double[] holdsMs)
    {
        OpenStart[] starts = [.. Enumerable.Range(1, 5 * holdsMs.Length).Select(n => fake.Start(demand: n, inUse: 0))];
        foreach (OpenStart start in starts)
            advisor.OnOpenStarting(start);
        fake.Time.Advance(Fake.Ms(1));
        for (int wave = 0; wave < holdsMs.Length; wave++)
        {
            long acquired = fake.Now;
            for (int i = wave * 5; i < wave * 5 + 5; i++)
            {
                var outcome = new OpenOutcome(fake.Time.GetElapsedTime(starts[i].Started), 0, 0, starts[i].Demand > 5);
                fake.Opened(advisor, new CompletedOpen(starts[i], outcome, fake.Now, false, TimeSpan.Zero));
            }

            TimeSpan held = Fake.Ms(holdsMs[wave]);
            fake.Time.Advance(held);
            for (int i = 0; i < 5; i++)
                fake.Released(advisor, new Release(new HolderTable.Holder(acquired, "call", null, false), held, fake.Now));
        }

        var figures = new ReportFigures { Opens = starts.Length, QueuedOpens = starts.Length - 5 };
        advisor.Describe(figures);
        return figures;
    }

    [Fact]
    public void Only_stretches_of_queueing_between_close_readings_count_and_busy_is_the_larger_of_process_and_machine()
    {
        var fake = new Fake();
        var readings = new Queue<PoolSizeCpu.Reading>();
        long t0 = fake.Now;
        long Sec(double s) => t0 + (long)(s * fake.Time.TimestampFrequency);
        readings.Enqueue(new(t0, TimeSpan.Zero, 0, 1000)); // the first reading, taken when it is made
        var cpu = new PoolSizeCpu(fake.Time, () => readings.Dequeue());

        // Two seconds of queueing in quarter-second readings on a machine 20 % busy (jiffies of 1/100 s)...
        for (int i = 0; i <= 8; i++)
            cpu.Add(new(Sec(i * 0.25), TimeSpan.Zero, i * 5, 1000 + (i * 25)), queuing: true);
        Assert.Equal(0.2, cpu.BusyShare(new(Sec(2), TimeSpan.Zero, 40, 1200))!.Value, 3);

        // ...then a reading 5 s later (no queueing counted between), and a stretch whose readings are 2 s apart: not counted.
        cpu.Add(new(Sec(7), TimeSpan.Zero, 40 + 500, 1200 + 500), queuing: true);
        cpu.Add(new(Sec(9), TimeSpan.Zero, 40 + 700, 1200 + 700), queuing: true);
        Assert.Equal(0.2, cpu.BusyShare(new(Sec(9), TimeSpan.Zero, 0, 0))!.Value, 3);

        // A reading taken while no caller queued ends the stretch: the next one does not count back to it.
        cpu.Add(new(Sec(9.25), TimeSpan.Zero, 740 + 25, 1900 + 25), queuing: false);
        cpu.Add(new(Sec(9.5), TimeSpan.Zero, 765 + 25, 1925 + 25), queuing: true);
        Assert.Equal(0.2, cpu.BusyShare(new(Sec(9.5), TimeSpan.Zero, 0, 0))!.Value, 3);

        // The process alone may show the CPUs busy where the machine is unknown (0 jiffies): its CPU time over its CPUs.
        var process = new PoolSizeCpu(fake.Time, () => new(t0, TimeSpan.Zero, 0, 0));
        TimeSpan all = TimeSpan.FromSeconds(Environment.ProcessorCount);
        Assert.Equal(1.0, process.Busy(new(t0, TimeSpan.Zero, 0, 0), new(Sec(1), all, 0, 0)), 3);
        Assert.Equal(0.5, process.Busy(new(t0, TimeSpan.Zero, 0, 100), new(Sec(1), all / 4, 50, 200)), 3);
    }
}
