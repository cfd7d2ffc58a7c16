using System.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// The sampler that follows a first wave reads the process's own CPU time: what this process spins shows in it, and its
/// idle time never exceeds the time it followed.
/// </summary>
public sealed class ColdWaveActivityTests
{
    [Fact]
    public void The_process_cpu_spent_while_a_wave_is_followed_is_counted_and_idle_time_is_at_most_the_time_followed()
    {
        var followed = Stopwatch.StartNew();
        ColdWaveActivity activity = ColdWaveActivity.Start();
        TimeSpan before = Environment.CpuUsage.TotalTime;
        while (Environment.CpuUsage.TotalTime - before < TimeSpan.FromMilliseconds(30))
            Thread.SpinWait(1000); // at least 30 ms of this process's CPU, however loaded the machine
        Thread.Sleep(ColdWaveActivity.Every * 4);
        WaveActivity seen = activity.Stop();
        double followedMs = followed.Elapsed.TotalMilliseconds;

        Assert.InRange(seen.CpuMs, 30, double.MaxValue);
        Assert.InRange(seen.IdleMs, 0, followedMs);
        Assert.InRange(seen.LongestIdleMs, 0, seen.IdleMs);
        Assert.Equal(seen, activity.Stop()); // stopped once: the figures stay as they were
    }

    [Fact]
    public void Nothing_is_sampled_where_the_pool_runs_on_another_clock()
    {
        Assert.True(double.IsNaN(WaveActivity.Unknown.IdleMs));
        Assert.True(double.IsNaN(WaveActivity.Unknown.LongestIdleMs));
    }
}
