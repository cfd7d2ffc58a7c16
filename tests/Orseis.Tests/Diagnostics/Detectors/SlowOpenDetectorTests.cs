using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

public sealed class SlowOpenDetectorTests
{
    [Fact]
    public void Slow_physical_connects_after_the_first_wave_are_a_cold_pool_with_the_providers_connect_time()
    {
        var fake = new Fake();
        var slow = new SlowOpenDetector(fake.Log, ConnectCount.ProviderMeter);
        slow.OnOpenCompleted(fake.Start(demand: 30), new OpenOutcome(Fake.Ms(320), 1, 310, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.StartsWith("Cold pool", finding.Message, StringComparison.Ordinal);
        Assert.Equal(310, finding.Figures["connectMs"], 3);
        Assert.Equal(30, finding.Figures["demand"]);
    }

    [Fact]
    public void A_cold_pool_growing_under_load_names_the_crowd_of_connects_among_the_causes()
    {
        // The capacity study's pool growing to 256: 54 connects made during one open, 202 ms each.
        var fake = new Fake();
        var slow = new SlowOpenDetector(fake.Log, ConnectCount.ProviderMeter);
        slow.OnOpenCompleted(fake.Start(demand: 181), new OpenOutcome(Fake.Ms(182), 54, 54 * 202.3, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);
        PoolFinding crowded = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.Contains("With 54 connects at once, part of each one's time is the others'", crowded.Message, StringComparison.Ordinal);
        Assert.Contains("WarmUpAsync", crowded.Message, StringComparison.Ordinal);

        // Two at once (a slow handshake, not a crowd): the server's own causes only.
        var few = new Fake();
        new SlowOpenDetector(few.Log, ConnectCount.ProviderMeter)
            .OnOpenCompleted(few.Start(demand: 3), new OpenOutcome(Fake.Ms(307), 2, 614, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);
        PoolFinding alone = Assert.Single(few.Findings(FindingKind.SlowOpen));
        Assert.Contains("New connections are slow on this server (authentication, init_connect", alone.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("at once", alone.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_first_wave_queued_opens_and_starvation_delayed_opens_are_not_slow_opens()
    {
        var fake = new Fake();
        var slow = new SlowOpenDetector(fake.Log, ConnectCount.ProviderMeter);
        var cold = new OpenOutcome(Fake.Ms(400), 1, 390, Queued: false);
        slow.OnOpenCompleted(fake.Start(), cold, 0, afterFirstWave: false, TimeSpan.Zero); // the process's first connects
        slow.OnOpenCompleted(fake.Start(demand: 20), new OpenOutcome(Fake.Ms(900), 0, 0, Queued: true), 0, true, TimeSpan.Zero);
        slow.OnOpenCompleted(fake.Start(), cold, 0, afterFirstWave: true, threadPoolDelay: Fake.Ms(600)); // the thread pool starved
        // A synchronous open too: MySql.Data's blocks on tasks that wait for a pool thread (the cold-start study's cold bursts).
        slow.OnOpenCompleted(fake.Start(async: false), cold, 0, afterFirstWave: true, threadPoolDelay: Fake.Ms(600));
        Assert.Empty(fake.Findings(FindingKind.SlowOpen));

        // A thread pool late by half the open's time explains it too (a 119 ms MySql.Data connect among 130 busy requests).
        slow.OnOpenCompleted(fake.Start(async: false), cold, 0, afterFirstWave: true, threadPoolDelay: Fake.Ms(200));
        Assert.Empty(fake.Findings(FindingKind.SlowOpen));

        // The same sync open with the thread pool prompt is a cold pool.
        slow.OnOpenCompleted(fake.Start(async: false), cold, 0, afterFirstWave: true, threadPoolDelay: Fake.Ms(5));
        Assert.Single(fake.Findings(FindingKind.SlowOpen));
    }

    [Fact]
    public void One_stalled_warm_open_is_not_a_finding_but_warm_opens_that_stay_slow_are_a_slow_server()
    {
        var fake = new Fake();
        var slow = new SlowOpenDetector(fake.Log, ConnectCount.ProviderMeter);
        var warm = new OpenOutcome(Fake.Ms(1), 0, 0, Queued: false);
        for (int i = 0; i < 20; i++)
            slow.OnOpenCompleted(fake.Start(), warm, 5, true, TimeSpan.Zero);
        slow.OnOpenCompleted(fake.Start(), new OpenOutcome(Fake.Ms(400), 0, 0, Queued: false), 5, true, TimeSpan.Zero); // a GC pause
        for (int i = 0; i < 5; i++)
            slow.OnOpenCompleted(fake.Start(), warm, 5, true, TimeSpan.Zero);
        Assert.Empty(fake.Findings(FindingKind.SlowOpen));
        Assert.Equal(1, slow.UsualMs, 3);

        // Twenty callers stalled together (all in flight during one 300 ms pause): not sustained.
        OpenStart stalled = fake.Start();
        fake.Time.Advance(Fake.Ms(300));
        for (int i = 0; i < 20; i++)
            slow.OnOpenCompleted(stalled, new OpenOutcome(Fake.Ms(300), 0, 0, Queued: false), 5, true, TimeSpan.Zero);
        slow.OnOpenCompleted(fake.Start(), warm, 5, true, TimeSpan.Zero);
        Assert.Empty(fake.Findings(FindingKind.SlowOpen));

        // Callers that waited 5 s for a full pool of MySql.Data connections, though each entered Open with room left (its pool
        // does not serve callers in the order they entered): others queued meanwhile, so these are not a slow server.
        for (int i = 0; i < 8; i++)
        {
            OpenStart start = fake.Start();
            fake.Time.Advance(Fake.Ms(700));
            slow.OnOpenCompleted(start, new OpenOutcome(Fake.Ms(5000), 0, 0, Queued: false, OthersQueued: true), 0, true, TimeSpan.Zero);
        }

        Assert.Empty(fake.Findings(FindingKind.SlowOpen));
        slow.OnOpenCompleted(fake.Start(), warm, 5, true, TimeSpan.Zero);

        // Slow for over a second, with no fast open between: the server is slow.
        for (int i = 0; i < 5; i++)
        {
            OpenStart start = fake.Start();
            fake.Time.Advance(Fake.Ms(300));
            slow.OnOpenCompleted(start, new OpenOutcome(Fake.Ms(300), 0, 0, Queued: false), 5, true, TimeSpan.Zero);
        }

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.Contains("the pool is warm: the server or the network is slow", finding.Message, StringComparison.Ordinal);
        Assert.Equal(300, finding.Figures["medianMs"], 3);
    }

    [Fact]
    public void Without_a_connect_count_slow_opens_are_reported_without_claiming_a_cause()
    {
        var fake = new Fake();
        var slow = new SlowOpenDetector(fake.Log, ConnectCount.None);
        for (int i = 0; i < 5; i++)
        {
            OpenStart start = fake.Start();
            fake.Time.Advance(Fake.Ms(450));
            slow.OnOpenCompleted(start, new OpenOutcome(Fake.Ms(450), 0, 0, Queued: false), null, true, TimeSpan.Zero);
        }
        Assert.Contains("cannot be told", Assert.Single(fake.Findings(FindingKind.SlowOpen)).Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(2, false)] // three callers, two places: one queued, so the two that entered with room may have waited too
    [InlineData(3, true)] // room for all three: five-second opens with nobody queued are a slow server
    public void Opens_that_ran_while_other_callers_queued_are_not_a_slow_server(int maxPoolSize, bool slowServer)
    {
        // The process-wide thread-pool probe (other tests run it, some starving the pool) reads real time: a pool on a fake
        // clock is never excused by it, so these opens are judged on what the pool saw alone.
        var fake = new Fake(o => { o.Detectors = FindingKind.SlowOpen; o.ThreadPoolDelayThreshold = TimeSpan.FromHours(1); });
        using var telemetry = new PoolTelemetry("pool", "other_sql", maxPoolSize, fake.Options);
        for (int burst = 0; burst < 3; burst++)
        {
            OpenStart[] starts = [telemetry.OpenStarting(async: true), telemetry.OpenStarting(async: true), telemetry.OpenStarting(async: true)];
            fake.Time.Advance(TimeSpan.FromSeconds(5));
            foreach (OpenStart start in starts)
                telemetry.OpenCompleted(start);
        }

        PoolReport report = telemetry.CreateReport(ExecutionMode.OpenPerCall);
        Assert.Equal(slowServer ? 1 : 0, report.Findings.Count(f => f.Kind == FindingKind.SlowOpen));
    }

    [Fact]
    public void Without_a_connect_meter_an_open_is_judged_by_the_fastest_connect_made_while_it_ran()
    {
        var fake = new Fake();
        var slow = new SlowOpenDetector(fake.Log, ConnectCount.ConnectionId);

        // Every caller reconnecting after a server restart: most connects are quick, one waits behind the others.
        OpenStart waiting = fake.Start(demand: 11);
        foreach (double ms in new[] { 12.0, 15, 20, 40 })
        {
            fake.Time.Advance(Fake.Ms(10));
            slow.OnOpenCompleted(fake.Start(demand: 11), new OpenOutcome(Fake.Ms(ms), 1, ms, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);
        }

        fake.Time.Advance(Fake.Ms(110));
        slow.OnOpenCompleted(waiting, new OpenOutcome(Fake.Ms(152), 1, 152, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);
        Assert.Empty(fake.Findings(FindingKind.SlowOpen));

        // Later, one quick connect, then callers whose connects are all slow (init_connect sleeping 0.3 s): a cold pool,
        // the quick connect before them not counted, as it did not run beside them.
        fake.Time.Advance(TimeSpan.FromSeconds(3));
        slow.OnOpenCompleted(fake.Start(), new OpenOutcome(Fake.Ms(15), 1, 15, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);
        OpenStart[] burst = [fake.Start(demand: 40), fake.Start(demand: 40)];
        fake.Time.Advance(Fake.Ms(310));
        slow.OnOpenCompleted(burst[0], new OpenOutcome(Fake.Ms(310), 1, 310, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);
        fake.Time.Advance(Fake.Ms(10));
        slow.OnOpenCompleted(burst[1], new OpenOutcome(Fake.Ms(320), 1, 320, Queued: false), 0, afterFirstWave: true, TimeSpan.Zero);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.StartsWith("Cold pool", finding.Message, StringComparison.Ordinal);
        Assert.Equal(310, finding.Figures["connectMs"], 3);
        Assert.Contains("the fastest connect made while it ran took 310 ms", finding.Message, StringComparison.Ordinal);
    }
}
