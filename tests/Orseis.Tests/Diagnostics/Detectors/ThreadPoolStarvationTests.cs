using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

public sealed class ThreadPoolStarvationTests
{
    [Fact]
    public void The_probe_reports_how_long_its_work_item_has_waited_and_what_the_last_one_waited()
    {
        var fake = new Fake();
        var probe = new ThreadPoolProbe.ProbeState(fake.Time);
        int queued = 0;
        Assert.Null(probe.Tick(_ => queued++));
        fake.Time.Advance(Fake.Ms(100));
        Assert.Equal(Fake.Ms(100), probe.Tick(_ => queued++));
        fake.Time.Advance(Fake.Ms(650));
        Assert.Equal(Fake.Ms(750), probe.DelayWithin(Fake.Ms(750))); // the probe still out
        probe.Ran();
        Assert.Equal(1, queued);
        Assert.Equal(Fake.Ms(750), probe.LastDelay);

        // The pool recovers: prompt probes follow, but an open that began before the slow one still overlapped it.
        for (int i = 0; i < 20; i++)
        {
            fake.Time.Advance(TimeSpan.FromSeconds(1));
            Assert.Null(probe.Tick(_ => queued++));
            fake.Time.Advance(Fake.Ms(1));
            probe.Ran();
        }

        Assert.Equal(Fake.Ms(750), probe.DelayWithin(TimeSpan.FromSeconds(21))); // an open that began before the slow probe ran
        Assert.Equal(Fake.Ms(1), probe.DelayWithin(TimeSpan.FromSeconds(19))); // one that began after: prompt probes only
        fake.Time.Advance(TimeSpan.FromSeconds(5));
        Assert.Equal(TimeSpan.Zero, probe.DelayWithin(TimeSpan.FromSeconds(1))); // no probe ran within the last second
    }

    [Fact]
    public void A_prompt_pool_is_probed_once_a_second_and_a_slow_one_at_every_tick()
    {
        var fake = new Fake();
        var probe = new ThreadPoolProbe.ProbeState(fake.Time);
        int queued = 0;
        Assert.Null(probe.Tick(_ => queued++));
        fake.Time.Advance(Fake.Ms(1));
        probe.Ran(); // prompt
        for (int tick = 1; tick < 10; tick++)
        {
            fake.Time.Advance(Fake.Ms(100) - (tick == 1 ? Fake.Ms(1) : TimeSpan.Zero));
            Assert.Null(probe.Tick(_ => queued++));
        }

        Assert.Equal(1, queued); // 900 ms after the first: nothing more queued
        fake.Time.Advance(Fake.Ms(100));
        Assert.Null(probe.Tick(_ => queued++));
        Assert.Equal(2, queued); // a second after the first

        fake.Time.Advance(Fake.Ms(100));
        Assert.Equal(Fake.Ms(100), probe.Tick(_ => queued++)); // still out: its wait, nothing queued
        probe.Ran(); // waited 100 ms: not prompt
        fake.Time.Advance(Fake.Ms(100));
        Assert.Null(probe.Tick(_ => queued++));
        Assert.Equal(3, queued); // the next tick probes again
    }

    [Fact]
    public void A_probe_waiting_past_the_threshold_is_starvation_named_at_the_next_Orseis_call()
    {
        var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
        var detector = new ThreadPoolStarvationDetector(fake.Log);
        detector.OnProbe(Fake.Ms(300), stillWaiting: true, runtimeSaysStarved: true);
        Assert.False(detector.WantsCallSite);
        detector.OnProbe(Fake.Ms(900), stillWaiting: true, runtimeSaysStarved: false); // a busy CPU: the runtime added no thread
        Assert.False(detector.WantsCallSite);
        detector.OnProbe(Fake.Ms(600), stillWaiting: true, runtimeSaysStarved: true);
        Assert.True(detector.WantsCallSite);
        detector.OnCallWhileStarving(async: false);

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.ThreadPoolStarvation));
        Assert.Equal(600, finding.Figures["probeDelayMs"], 0);
        Assert.Equal(1, finding.Figures["syncCall"]);
        Assert.Contains("called synchronously on a pool thread from", finding.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(A_probe_waiting_past_the_threshold_is_starvation_named_at_the_next_Orseis_call), finding.Location, StringComparison.Ordinal);
        Assert.False(detector.WantsCallSite);
    }

    [Fact]
    public void Most_pool_threads_blocked_in_Orseis_calls_is_starvation_without_the_runtimes_injection()
    {
        var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
        var detector = new ThreadPoolStarvationDetector(fake.Log);

        // Half the threads (not most) in Orseis, or most of them with a short wait: nothing.
        detector.OnProbe(Fake.Ms(900), stillWaiting: true, runtimeSaysStarved: false, pool: new PoolThreads(4, 2));
        detector.OnProbe(Fake.Ms(400), stillWaiting: true, runtimeSaysStarved: false, pool: new PoolThreads(3, 3));
        Assert.False(detector.WantsCallSite);

        detector.OnProbe(Fake.Ms(700), stillWaiting: true, runtimeSaysStarved: false, pool: new PoolThreads(3, 3));
        Assert.True(detector.WantsCallSite);
        detector.OnCallWhileStarving(async: false);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.ThreadPoolStarvation));
        Assert.Contains("3 of the 3 thread(s) the pool let run work were blocked inside synchronous Orseis calls", finding.Message, StringComparison.Ordinal);
        Assert.Contains("the runtime added no thread for it", finding.Message, StringComparison.Ordinal);
        Assert.Contains("called synchronously on a pool thread from", finding.Message, StringComparison.Ordinal);
        Assert.Equal(3, finding.Figures["blockedInOrseis"]);
    }

    [Fact]
    public void Threads_the_pool_holds_idle_under_its_goal_do_not_hide_the_ones_blocked_in_Orseis()
    {
        // Seen in CI: 11 threads existed, hill climbing let 4 run work, all 4 blocked in Orseis; counted against 11, silent.
        var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
        var detector = new ThreadPoolStarvationDetector(fake.Log);
        detector.OnProbe(Fake.Ms(900), stillWaiting: true, runtimeSaysStarved: false, pool: new PoolThreads(11, 4));
        Assert.False(detector.WantsCallSite);

        detector.OnProbe(Fake.Ms(1000), stillWaiting: true, runtimeSaysStarved: false,
            pool: new PoolThreads(PoolThreads.Running(existing: 11, goal: 4, min: 2), 4, Existing: 11));
        detector.OnCallWhileStarving(async: false);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.ThreadPoolStarvation));
        Assert.Contains("4 of the 4 thread(s) the pool let run work were blocked inside synchronous Orseis calls (11 existed, the rest held idle)",
            finding.Message, StringComparison.Ordinal);
        Assert.Equal(4, finding.Figures["runningThreads"]);
    }

    [Fact]
    public void The_backlog_is_how_long_every_tick_found_work_queued_and_one_empty_tick_ends_it()
    {
        var fake = new Fake();
        var probe = new ThreadPoolProbe.ProbeState(fake.Time);
        Assert.Equal(TimeSpan.Zero, probe.Backlog(workQueued: true));
        fake.Time.Advance(Fake.Ms(300));
        Assert.Equal(Fake.Ms(300), probe.Backlog(workQueued: true));
        fake.Time.Advance(Fake.Ms(100));
        Assert.Equal(TimeSpan.Zero, probe.Backlog(workQueued: false));
        fake.Time.Advance(Fake.Ms(100));
        Assert.Equal(TimeSpan.Zero, probe.Backlog(workQueued: true));
        fake.Time.Advance(Fake.Ms(600));
        Assert.Equal(Fake.Ms(600), probe.Backlog(workQueued: true));
    }

    [Fact]
    public void Work_queued_from_pool_threads_behind_calls_blocking_most_running_threads_is_starvation_though_the_probe_runs_at_once()
    {
        // Task.Run after an await queues to the thread's own queue: the probe, queued globally, runs within a few ms.
        var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
        var detector = new ThreadPoolStarvationDetector(fake.Log);

        // A backlog under the threshold, or one behind threads mostly not in Orseis (a busy CPU), is nothing.
        detector.OnProbe(Fake.Ms(3), stillWaiting: false, runtimeSaysStarved: false, justRan: true, pool: new PoolThreads(7, 6, 13, Fake.Ms(400)));
        detector.OnProbe(Fake.Ms(3), stillWaiting: false, runtimeSaysStarved: false, justRan: true, pool: new PoolThreads(7, 3, 13, Fake.Ms(2000)));
        Assert.False(detector.WantsCallSite);
        Assert.Empty(fake.Log.Kept);

        detector.OnProbe(Fake.Ms(3), stillWaiting: false, runtimeSaysStarved: false, justRan: true, pool: new PoolThreads(7, 6, 13, Fake.Ms(600)));
        Assert.True(detector.WantsCallSite);
        detector.OnCallWhileStarving(async: false);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.ThreadPoolStarvation));
        Assert.Contains("work queued on it waited 600 ms without its queues emptying", finding.Message, StringComparison.Ordinal);
        Assert.Contains("6 of the 7 thread(s) the pool let run work were blocked inside synchronous Orseis calls (13 existed", finding.Message, StringComparison.Ordinal);
        Assert.Equal(600, finding.Figures["backlogMs"]);
    }

    [Fact]
    public void Blocked_calls_that_leave_threads_the_pool_starts_at_once_are_a_busy_cpu_not_starvation()
    {
        // Issue 45: 200 synchronous callers under SetMinThreads(204), beside a CPU hog on two cores. The probe ran 900 ms
        // late and its queues never emptied, but 4 threads were free to take it: it waited for a CPU.
        var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
        var detector = new ThreadPoolStarvationDetector(fake.Log);
        var burst = new PoolThreads(204, 200, 204, Fake.Ms(2000), PoolThreads.AllowedThreads(min: 204, max: 32767));
        detector.OnProbe(Fake.Ms(900), stillWaiting: true, runtimeSaysStarved: false, pool: burst);
        detector.OnProbe(Fake.Ms(950), stillWaiting: false, runtimeSaysStarved: false, justRan: true, pool: burst);

        // Threads not yet started count as room: the pool starts them as soon as work waits, up to its minimum.
        var starting = new PoolThreads(150, 150, 150, Fake.Ms(2000), PoolThreads.AllowedThreads(min: 204, max: 32767));
        detector.OnProbe(Fake.Ms(900), stillWaiting: true, runtimeSaysStarved: false, pool: starting);
        Assert.False(detector.WantsCallSite);
        Assert.Empty(fake.Log.Kept);

        // Three threads outside the calls (one between two calls, two a host holds blocked for good) leave no room: starvation.
        detector.OnProbe(Fake.Ms(900), stillWaiting: true, runtimeSaysStarved: false, pool: new PoolThreads(204, 201, 204, Fake.Ms(2000), 204));
        Assert.True(detector.WantsCallSite);
        detector.OnCallWhileStarving(async: false);
        Assert.Equal(201, Assert.Single(fake.Findings(FindingKind.ThreadPoolStarvation)).Figures["blockedInOrseis"]);
    }

    [Theory]
    [InlineData(204, 32767, 204)] // SetMinThreads(204)
    [InlineData(2, 32767, 2)] // the default minimum on 2 cores: threads the goal adds above it may be busy elsewhere
    [InlineData(2, 2, 2)] // SetMaxThreads(2)
    [InlineData(204, 100, 100)] // a minimum above the maximum: no more than the maximum run
    public void The_threads_the_pool_starts_at_once_are_its_minimum_under_its_maximum(int min, int max, int allowed) =>
        Assert.Equal(allowed, PoolThreads.AllowedThreads(min, max));

    [Theory]
    [InlineData(11, 4, 2, 4)] // hill climbing let 4 of 11 run
    [InlineData(11, 0, 2, 11)] // no goal announced: every thread counts
    [InlineData(3, 8, 2, 3)] // a goal above the threads that exist yet
    [InlineData(11, 1, 6, 6)] // never below the minimum (SetMinThreads raises the goal without an event)
    public void Threads_that_run_work_are_the_existing_ones_under_the_goal_and_over_the_minimum(int existing, int goal, int min, int running) =>
        Assert.Equal(running, PoolThreads.Running(existing, goal, min));

    [Fact]
    public void A_busy_cpu_with_no_thread_in_Orseis_is_not_starvation()
    {
        var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
        var detector = new ThreadPoolStarvationDetector(fake.Log);
        detector.OnProbe(Fake.Ms(2000), stillWaiting: true, runtimeSaysStarved: false, pool: new PoolThreads(2, 0));
        detector.OnProbe(Fake.Ms(30), stillWaiting: false, runtimeSaysStarved: false, justRan: true, pool: new PoolThreads(2, 0));
        Assert.Empty(fake.Log.Kept);
    }

    [Fact]
    public void Starvation_with_no_Orseis_call_is_reported_without_a_site_and_a_short_wait_never()
    {
        var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
        var detector = new ThreadPoolStarvationDetector(fake.Log);
        detector.OnProbe(Fake.Ms(499), stillWaiting: true, runtimeSaysStarved: true);
        detector.OnProbe(Fake.Ms(20), stillWaiting: false, runtimeSaysStarved: true);
        Assert.Empty(fake.Log.Kept);

        detector.OnProbe(Fake.Ms(600), stillWaiting: true, runtimeSaysStarved: true);
        fake.Time.Advance(Fake.Ms(600));
        detector.OnProbe(Fake.Ms(1200), stillWaiting: true, runtimeSaysStarved: true);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.ThreadPoolStarvation));
        Assert.Null(finding.Location);
        Assert.Contains("Look for blocking on pool threads", finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void An_async_call_through_a_provider_whose_async_methods_block_is_named_as_blocking_not_sync_over_async()
    {
        var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
        var detector = new ThreadPoolStarvationDetector(fake.Log, blockingAsyncProvider: "MySql.Data");
        detector.OnProbe(Fake.Ms(600), stillWaiting: true, runtimeSaysStarved: true);
        detector.OnCallWhileStarving(async: true);

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.ThreadPoolStarvation));
        Assert.Contains("MySql.Data runs its async methods synchronously", finding.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("sync-over-async", finding.Message, StringComparison.Ordinal);
        Assert.Equal(0, finding.Figures["syncCall"]);
        Assert.Equal(1, finding.Figures["providerAsyncBlocks"]);
    }

    [Fact]
    public void Work_waiting_in_the_queues_brings_a_probe_at_the_next_tick_even_while_the_pool_is_quiet()
    {
        var fake = new Fake();
        var probe = new ThreadPoolProbe.ProbeState(fake.Time);
        int queued = 0;
        Assert.Null(probe.Tick(_ => queued++));
        fake.Time.Advance(Fake.Ms(1));
        probe.Ran(); // prompt: the next would wait a second
        Assert.Equal(1, probe.Runs);
        Assert.Equal(Fake.Ms(1), probe.TakeRan());
        Assert.Null(probe.TakeRan()); // each run is given once
        fake.Time.Advance(Fake.Ms(100));
        Assert.Null(probe.Tick(_ => queued++, workQueued: false));
        Assert.Equal(1, queued);
        fake.Time.Advance(Fake.Ms(100));
        Assert.Null(probe.Tick(_ => queued++, workQueued: true)); // work waits: maybe starvation beginning
        Assert.Equal(2, queued);
        fake.Time.Advance(Fake.Ms(100));
        Assert.Null(probe.TakeRan()); // one is out
        Assert.Equal(Fake.Ms(100), probe.Tick(_ => queued++, workQueued: true)); // out: its wait, nothing more queued
        Assert.Equal(2, queued);
        fake.Time.Advance(Fake.Ms(600));
        probe.Ran();
        Assert.Equal(Fake.Ms(700), probe.TakeRan());
    }

    [Fact]
    public void Starvation_seen_while_the_probe_waited_is_reported_when_the_pool_recovers_before_any_Orseis_call()
    {
        var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
        var detector = new ThreadPoolStarvationDetector(fake.Log);
        detector.OnProbe(Fake.Ms(600), stillWaiting: true, runtimeSaysStarved: true);
        Assert.Empty(fake.Log.Kept); // waiting for a call to name its site
        fake.Time.Advance(Fake.Ms(100));
        detector.OnProbe(Fake.Ms(650), stillWaiting: false, runtimeSaysStarved: true, justRan: true);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.ThreadPoolStarvation));
        Assert.Null(finding.Location);
        Assert.Equal(600, finding.Figures["probeDelayMs"], 0);
        Assert.False(detector.WantsCallSite);
    }

    [Fact]
    public void A_probe_that_ran_before_the_runtime_confirmed_starvation_is_judged_once_when_it_does()
    {
        var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
        var detector = new ThreadPoolStarvationDetector(fake.Log);
        // A second of starvation: the probe waited 900 ms while the runtime had not yet added a thread for it.
        detector.OnProbe(Fake.Ms(900), stillWaiting: true, runtimeSaysStarved: false);
        fake.Time.Advance(Fake.Ms(100));
        detector.OnProbe(Fake.Ms(950), stillWaiting: false, runtimeSaysStarved: true, justRan: true);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.ThreadPoolStarvation));
        Assert.Equal(950, finding.Figures["probeDelayMs"], 0);

        // The same probe at later ticks, the runtime's injection still recent: not judged again, and the episode is over.
        fake.Time.Advance(TimeSpan.FromMinutes(10)); // past the log's rate limit, so only the judging keeps it single
        detector.OnProbe(Fake.Ms(950), stillWaiting: false, runtimeSaysStarved: true);
        Assert.Single(fake.Findings(FindingKind.ThreadPoolStarvation));
        Assert.False(detector.WantsCallSite);
    }

    [Fact]
    public void A_probe_that_ran_late_on_a_busy_CPU_without_the_runtime_adding_threads_is_not_starvation()
    {
        var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
        var detector = new ThreadPoolStarvationDetector(fake.Log);
        detector.OnProbe(Fake.Ms(900), stillWaiting: true, runtimeSaysStarved: false);
        detector.OnProbe(Fake.Ms(950), stillWaiting: false, runtimeSaysStarved: false, justRan: true);
        detector.OnProbe(Fake.Ms(400), stillWaiting: false, runtimeSaysStarved: true, justRan: true); // prompt enough
        Assert.Empty(fake.Log.Kept);
    }
}
