using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// When the pool-size advisor starts reading the CPUs (issue 44's cold start): with a detector on, as it is made (its
/// first reading is the baseline of "since this was made"); with none, at the first report, which then reads exactly what
/// it read before: no caller is seen to queue without a detector, and only a queue's advice uses the CPUs.
/// </summary>
public sealed class PoolSizeCpuStartTests
{
    [Fact]
    public void With_a_detector_on_the_advisor_takes_its_CPU_baseline_as_it_is_made()
    {
        Assert.True(new PoolSizeAdvisor(new Fake().Log, 10).CpuMade);
        Assert.True(new PoolSizeAdvisor(new Fake(o => o.Detectors = FindingKind.PoolSize).Log, 10, reportsFindings: true).CpuMade);
    }

    [Fact]
    public void With_no_detector_the_CPUs_are_first_read_by_a_report_which_says_what_an_advisor_reading_them_from_the_start_says()
    {
        var fake = new Fake(o => o.Detectors = FindingKind.None);
        var lazy = new PoolSizeAdvisor(fake.Log, 10, holders: fake.Holders);
        var eager = new PoolSizeAdvisor(fake.Log, 10, cpu: new PoolSizeCpu(fake.Time), holders: fake.Holders);
        Assert.False(lazy.CpuMade);

        // What a pool with no detector still tells the advisor while a listener times its holds: releases only (no open
        // is heard), 200 holds of 5 to 24 ms over two seconds.
        for (int i = 0; i < 200; i++)
        {
            long acquired = fake.Now;
            TimeSpan held = Fake.Ms(5 + i % 20);
            fake.Time.Advance(held);
            var release = new Release(new HolderTable.Holder(acquired, "call", null, false), held, fake.Now);
            fake.Released(lazy, release);
            fake.Released(eager, release);
            fake.Time.Advance(Fake.Ms(5));
        }

        Assert.False(lazy.CpuMade);
        var fromLazy = new ReportFigures { Opens = 200 };
        var fromEager = new ReportFigures { Opens = 200 };
        lazy.Describe(fromLazy);
        eager.Describe(fromEager);

        Assert.True(lazy.CpuMade);
        Assert.NotNull(fromEager.MedianHoldTime);
        Assert.NotNull(fromEager.PoolSizeAdvice);
        Assert.Equal(fromEager.MedianHoldTime, fromLazy.MedianHoldTime);
        Assert.Equal(fromEager.MeanInUse, fromLazy.MeanInUse);
        Assert.Equal(fromEager.RecommendedMaxPoolSize, fromLazy.RecommendedMaxPoolSize);
        Assert.Equal(fromEager.PoolSizeAdvice, fromLazy.PoolSizeAdvice);
    }
}
