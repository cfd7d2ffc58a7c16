using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// A first wave whose connects hang is named while its opens still wait (<see cref="ColdStarts"/>' watch), not when
/// they end; a connect that timed out while the server answered others is a connect lost on the way, not an outage.
/// </summary>
public sealed class HangingWaveTests
{
    private static readonly Func<TimeSpan> NothingCompiled = static () => TimeSpan.Zero;

    /// <summary>Moves the fake clock on in steps of the watch's tick, so its timer runs on time.</summary>
    private static void Run(Fake fake, double ms)
    {
        for (double done = 0; done < ms; done += ColdStarts.Tick.TotalMilliseconds)
            fake.Time.Advance(ColdStarts.Tick);
    }

    private static ColdStarts Waves(Fake fake, int? maxPoolSize = null) =>
        new(fake.Log, ConnectCount.ProviderMeter, NothingCompiled, static () => static () => WaveActivity.Unknown, maxPoolSize);

    [Fact]
    public void A_first_wave_whose_connects_take_seconds_is_named_while_its_opens_wait()
    {
        var fake = new Fake();
        using ColdStarts waves = Waves(fake);
        OpenStart start = fake.Start(demand: 16);
        for (int i = 0; i < 16; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false, start.Started);
        Run(fake, 1400);
        Assert.Empty(fake.Log.Kept); // under HangAfter: a slow connect, not yet one that takes seconds
        Run(fake, 200);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.StartsWith("Cold start of pool 'pool': the 16 opens of its first burst have waited 1.5 s for new connections", finding.Message, StringComparison.Ordinal);
        Assert.Contains("await db.WarmUpAsync(16)", finding.Message, StringComparison.Ordinal);
        Assert.Equal(16, finding.Figures["waiting"]);
        Assert.Equal(0, finding.Figures["connected"]);

        // The opens end at 3 s: the wave was named, its verdict is not reported again.
        Run(fake, 1400);
        for (int i = 1; i <= 16; i++)
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(3000), i, i * 3000, Queued: false), fake.Now);
        for (int i = 0; i < 16; i++)
            waves.OnHoldReleased(fake.Now, Fake.Ms(20), kind: 1, fake.Now);
        Run(fake, 2500);
        waves.Describe(new ReportFigures());
        Assert.Single(fake.Findings(FindingKind.SlowOpen));
    }

    [Fact]
    public void Without_the_watch_the_same_wave_is_named_only_when_its_opens_end()
    {
        // The same wave judged as before: its verdict, once its opens ended at 3 s and its holds are back, is the one finding.
        var fake = new Fake();
        using ColdStarts waves = Waves(fake);
        OpenStart start = fake.Start(demand: 4);
        for (int i = 0; i < 4; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false, start.Started);
        fake.Time.Advance(Fake.Ms(3000)); // one late tick: a process that did not run meanwhile (stopped, paused) is not credited
        Assert.Empty(fake.Log.Kept);
        long at = fake.Now;
        for (int i = 1; i <= 4; i++)
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(3000), i, i * 3000, Queued: false), at);
        for (int i = 0; i < 4; i++)
            waves.OnHoldReleased(at, Fake.Ms(20), kind: 1, fake.Now);
        waves.Describe(new ReportFigures());
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.Contains("the first 4 requests took", finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Async_opens_of_a_starved_thread_pool_wait_for_a_thread_not_for_a_connect()
    {
        // Sync-over-async on a fresh process (the suite's starvation-sync-over-async): the burst's async opens cannot end
        // until a thread runs their continuations, and the watch's own timer still ran within its tick now and then. Once the
        // thread pool's starvation was named while the wave was watched, the waiting is the thread pool's, not the server's.
        var fake = new Fake();
        using ColdStarts waves = Waves(fake);
        OpenStart start = fake.Start(demand: 19);
        for (int i = 0; i < 19; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false, start.Started);
        Run(fake, 700);
        fake.Log.Report(FindingKind.ThreadPoolStarvation, "The thread pool is starved", new Dictionary<string, double>(), null, rateLimited: true);
        Run(fake, 1400);
        Assert.Empty(fake.Findings(FindingKind.SlowOpen));
    }

    [Fact]
    public void A_stalled_process_is_not_a_wait_on_the_server()
    {
        // A GC pause or a SIGSTOP of the app: the watch's timer runs late, and that time is not counted.
        var fake = new Fake();
        using ColdStarts waves = Waves(fake);
        OpenStart start = fake.Start(demand: 300);
        for (int i = 0; i < 300; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false, start.Started);
        Run(fake, 200);
        fake.Time.Advance(TimeSpan.FromSeconds(4)); // stopped 4 s
        Run(fake, 300); // resumed: the opens complete as the process reads what the server sent long ago
        Assert.Empty(fake.Log.Kept);
        for (int i = 1; i <= 300; i++)
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(4500), i, i * 5, Queued: false), fake.Now);
        Run(fake, 3000);
        Assert.Empty(fake.Findings(FindingKind.SlowOpen));
    }

    [Fact]
    public void Stragglers_of_a_burst_whose_other_connects_completed_are_named_as_connects_lost_at_the_listen_queue()
    {
        var fake = new Fake();
        using ColdStarts waves = Waves(fake);
        OpenStart start = fake.Start(demand: 300);
        for (int i = 0; i < 300; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false, start.Started);
        Run(fake, 400);
        for (int i = 1; i <= 278; i++)
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(400), i, i * 150, Queued: false), fake.Now);
        Run(fake, 1000);
        Assert.Empty(fake.Log.Kept);
        Run(fake, 200);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.StartsWith(
            "Cold start of pool 'pool': 22 of the 300 opens of its first burst have waited 1.5 s for a new connection and are still " +
            "waiting, while 278 connected within 0.4 s.", finding.Message, StringComparison.Ordinal);
        Assert.Contains("lost at its listen queue", finding.Message, StringComparison.Ordinal);
        Assert.Equal(22, finding.Figures["waiting"]);
        Assert.Equal(278, finding.Figures["connected"]);
    }

    [Fact]
    public void A_bursts_late_callers_lost_at_the_listen_queue_are_named_while_they_wait_after_the_wave_ended()
    {
        // 300 callers over loopback: the wave closed at its first connect with 10 opens; 290 more began while those were in
        // flight (its crowd); the wave's opens end fast, 268 of the crowd's too, and 22 hang (their connects lost).
        var fake = new Fake();
        using ColdStarts waves = Waves(fake);
        OpenStart first = fake.Start(demand: 10);
        for (int i = 0; i < 10; i++)
            waves.OnOpenStarting(first with { FirstWave = true });
        fake.Time.Advance(Fake.Ms(5));
        var crowd = new List<OpenStart>();
        for (int i = 0; i < 290; i++)
        {
            OpenStart late = fake.Start(demand: 11 + i);
            crowd.Add(late);
            waves.OnOpenStarting(late); // not the wave's: its first connect completed
            fake.Time.Advance(TimeSpan.FromTicks(10));
        }

        Run(fake, 100);
        for (int i = 1; i <= 10; i++)
            waves.OnOpenCompleted(new CompletedOpen(first with { FirstWave = true }, new OpenOutcome(Fake.Ms(100), i, i * 5, Queued: false), fake.Now, false, TimeSpan.Zero));
        Run(fake, 200);
        foreach (OpenStart late in crowd.Take(268))
            waves.OnOpenCompleted(new CompletedOpen(late, new OpenOutcome(Fake.Ms(300), 1, 5, Queued: false), fake.Now, true, TimeSpan.Zero));
        Run(fake, 1000);
        Assert.Empty(fake.Log.Kept);
        Run(fake, 250);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.StartsWith("Cold start of pool 'pool': 22 of the 300 opens of its first burst have waited 1.5 s", finding.Message, StringComparison.Ordinal);
        Assert.Contains("while 278 connected within 0.3 s", finding.Message, StringComparison.Ordinal);
        Assert.Contains("lost at its listen queue", finding.Message, StringComparison.Ordinal);

        // They time out at 15 s: the watch ends, and warm calls read no more than one field again.
        fake.Time.Advance(TimeSpan.FromSeconds(13));
        var timedOut = new OpenFailure(new InvalidOperationException("Connect Timeout expired."), OpenTimeout.Connect, Cancelled: false, BrokeWhileOpening: false);
        foreach (OpenStart late in crowd.Skip(268))
            waves.OnOpenFailed(new FailedOpen(late, timedOut, null));
        Run(fake, 3000);
        Assert.Single(fake.Findings(FindingKind.SlowOpen));
    }

    [Fact]
    public void A_clean_burst_whose_late_callers_connect_within_a_second_is_silent()
    {
        // The same burst whose lost connects the kernel retried after 1 s: every open done by 1.3 s, nothing said.
        var fake = new Fake();
        using ColdStarts waves = Waves(fake);
        OpenStart first = fake.Start(demand: 10);
        waves.OnOpenStarting(first with { FirstWave = true });
        fake.Time.Advance(Fake.Ms(5));
        OpenStart late = fake.Start(demand: 300);
        waves.OnOpenStarting(late);
        Run(fake, 100);
        waves.OnOpenCompleted(new CompletedOpen(first with { FirstWave = true }, new OpenOutcome(Fake.Ms(100), 1, 5, Queued: false), fake.Now, false, TimeSpan.Zero));
        Run(fake, 1200);
        waves.OnOpenCompleted(new CompletedOpen(late, new OpenOutcome(Fake.Ms(1300), 1, 5, Queued: false), fake.Now, true, TimeSpan.Zero));
        Run(fake, 3000);
        Assert.Empty(fake.Log.Kept);
    }

    [Fact]
    public void Opens_queued_for_a_full_pool_are_not_waiting_for_a_connect()
    {
        // Max Pool Size 4, 40 callers: the 36 that entered with the pool full wait for a release (Saturation's), and the
        // four connects completed at once.
        var fake = new Fake();
        using ColdStarts waves = Waves(fake, maxPoolSize: 4);
        var starts = new List<OpenStart>();
        for (int i = 1; i <= 40; i++)
        {
            OpenStart start = fake.Start(demand: i);
            starts.Add(start);
            waves.OnOpenStarting(start with { FirstWave = true });
            fake.Time.Advance(TimeSpan.FromTicks(1));
        }

        Run(fake, 50);
        for (int i = 0; i < 4; i++)
            waves.OnFirstWaveOpenCompleted(starts[i], new OpenOutcome(Fake.Ms(50), 1, 40, Queued: false), fake.Now);
        Run(fake, 3000);
        Assert.Empty(fake.Findings(FindingKind.SlowOpen));
    }

    [Fact]
    public void A_reconnect_wave_none_of_whose_connects_complete_is_the_outages_not_a_cold_start()
    {
        var fake = new Fake();
        using ColdStarts waves = Waves(fake);
        OpenStart start = fake.Start(demand: 10);
        for (int i = 0; i < 10; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: true, start.Started);
        Run(fake, 3000);
        Assert.Empty(fake.Findings(FindingKind.SlowOpen));
    }

    [Fact]
    public void A_warm_up_whose_connects_take_seconds_is_the_cure_not_a_finding()
    {
        var fake = new Fake();
        using ColdStarts waves = Waves(fake);
        ColdStarts.InWarmUp.Value = true;
        try
        {
            for (int i = 0; i < 8; i++)
                waves.OnFirstWaveOpenStarting(afterLoss: false, fake.Now);
        }
        finally
        {
            ColdStarts.InWarmUp.Value = false;
        }

        Run(fake, 3000);
        Assert.Empty(fake.Log.Kept);
    }

    [Fact]
    public void A_connect_that_timed_out_while_the_server_answered_others_is_lost_not_an_outage()
    {
        var fake = new Fake();
        var answered = new ConnectsAnswered();
        var unavailable = new ServerUnavailableDetector(fake.Log);
        var timeouts = new PoolTimeoutDetector(fake.Log);
        OpenStart hung = fake.Start(demand: 300);
        fake.Time.Advance(Fake.Ms(400));
        answered.Completed(fake.Now); // the pool's telemetry records every open that connected
        unavailable.OnOpenCompleted(new CompletedOpen(fake.Start(demand: 300), new OpenOutcome(Fake.Ms(400), 278, 278 * 150, Queued: false), fake.Now, false, TimeSpan.Zero));
        fake.Time.Advance(TimeSpan.FromSeconds(14.6));
        var error = new InvalidOperationException("Connect Timeout expired.");
        var failure = new OpenFailure(error, OpenTimeout.Connect, Cancelled: false, BrokeWhileOpening: false);
        PoolExhaustedException exhausted = PoolExhaustion.Explain(error, OpenTimeout.Connect, "pool", 300, held: 0, parked: 0, waiting: 22, idle: 0, (null, null));
        // What the caller is told: the same connect lost on the way, not a server that does not answer.
        PoolExhaustedException told = PoolExhaustion.Explain(error, OpenTimeout.Connect, "pool", 300, held: 0, parked: 0, waiting: 22, idle: 0,
            (null, null), answered.Lost(hung, failure, fake.Time));
        Assert.DoesNotContain("not answering new connections", told.Message, StringComparison.Ordinal);
        Assert.Contains("The server is up: it completed 1 other connect(s) while this one waited, the latest 0.4 s after it began", told.Message, StringComparison.Ordinal);
        Assert.Contains("db.WarmUpAsync", told.Message, StringComparison.Ordinal);
        Assert.Contains("back_log", told.Message, StringComparison.Ordinal);
        Assert.Contains("not answering new connections", exhausted.Message, StringComparison.Ordinal); // nothing answered: as before
        for (int i = 0; i < 22; i++)
        {
            var open = new FailedOpen(hung, failure, exhausted, answered.Lost(hung, failure, fake.Time));
            unavailable.OnOpenFailed(open);
            timeouts.OnOpenFailed(open);
        }

        Assert.Empty(fake.Findings(FindingKind.ServerUnavailable));
        Assert.False(unavailable.InEpisode);
        PoolFinding lost = Assert.Single(fake.Findings(FindingKind.PoolTimeout)); // the 22 lost together: once
        Assert.StartsWith(
            "Pool 'pool' lost a new connection: its connect timed out after 15.0 s while 1 other connect(s) to the same server " +
            "completed during its wait, the latest 0.4 s after it began", lost.Message, StringComparison.Ordinal);
        Assert.Equal(1, lost.Figures["lostConnect"]);

        // A connect begun after the server's last answer that times out: the server answers none, an outage.
        OpenStart later = fake.Start(demand: 1);
        fake.Time.Advance(TimeSpan.FromSeconds(15));
        var open2 = new FailedOpen(later, failure, exhausted, answered.Lost(later, failure, fake.Time));
        unavailable.OnOpenFailed(open2);
        timeouts.OnOpenFailed(open2);
        Assert.Single(fake.Findings(FindingKind.ServerUnavailable));
        Assert.Contains(fake.Findings(FindingKind.PoolTimeout), f => f.Message == exhausted.Message);

        // A refused connect is never a lost one, whatever the server answered meanwhile.
        var refused = new OpenFailure(new InvalidOperationException("Connection refused"), OpenTimeout.None, Cancelled: false, BrokeWhileOpening: false);
        Assert.False(answered.Lost(hung, refused, fake.Time).IsLost);
    }
}
