using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>
/// A first wave of connects is summed up once its last open completed: reported when its connects were slow (a cold start,
/// or a reconnect wave after connections were lost), silent when they were fast or too few to matter.
/// </summary>
public sealed class ColdStartsTests
{
    [Fact]
    public void A_first_burst_on_slow_connects_is_a_cold_start_reported_once_the_wave_is_over()
    {
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter);
        for (int i = 0; i < 60; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false);
        // All began with the meter at 0 connects; each saw the connects completed while it ran (all of them, for the last).
        OpenStart start = new(fake.Now, 0, 60, PhysicalConnects: 0, CreateSeconds: 0, Async: true);
        for (int i = 1; i <= 59; i++)
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(530), i, i * 310, Queued: false));
        Assert.Empty(fake.Log.Kept); // not before the last open of the wave
        waves.OnFirstWaveOpenCompleted(start, null); // one failed: counted out, not in

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.StartsWith("Cold start of pool 'pool'", finding.Message, StringComparison.Ordinal);
        Assert.Contains("59 open(s) made 59 new physical connection(s) taking about 310 ms each (the provider's own connect time)",
            finding.Message, StringComparison.Ordinal);
        Assert.Contains("await db.WarmUpAsync(59)", finding.Message, StringComparison.Ordinal);
        Assert.Equal(530, finding.Figures["meanOpenMs"], 1);
        Assert.Equal(0, finding.Figures["afterLoss"]);
    }

    [Fact]
    public void Fast_connects_or_a_single_slow_one_are_not_worth_a_finding()
    {
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ProviderMeter);
        for (int i = 0; i < 60; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false);
        OpenStart start = new(fake.Now, 0, 60, PhysicalConnects: 0, CreateSeconds: 0, Async: true);
        for (int i = 1; i <= 60; i++)
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(210), i, i * 8, Queued: false)); // 8 ms connects, a 200 ms query each
        waves.OnFirstWaveOpenStarting(afterLoss: false);
        waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(400), 1, 350, Queued: false)); // one slow connect (the process's JIT)

        // 60 parallel handshakes on a busy client: 111 ms each, as the detector suite measured beside a CPU hog.
        for (int i = 0; i < 60; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: false);
        for (int i = 1; i <= 60; i++)
            waves.OnFirstWaveOpenCompleted(start, new OpenOutcome(Fake.Ms(112), i, i * 111, Queued: false));
        Assert.Empty(fake.Log.Kept);
    }

    [Fact]
    public void Reconnecting_after_a_loss_is_one_informational_finding_that_blames_no_pool_size()
    {
        var fake = new Fake(o => o.SlowOpenFloor = Fake.Ms(100));
        var waves = new ColdStarts(fake.Log, ConnectCount.ConnectionId);
        for (int i = 0; i < 10; i++)
            waves.OnFirstWaveOpenStarting(afterLoss: true);
        for (int i = 0; i < 10; i++)
            waves.OnFirstWaveOpenCompleted(fake.Start(), new OpenOutcome(Fake.Ms(250 + (i * 100)), 1, 0, Queued: false));

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.SlowOpen));
        Assert.StartsWith("Reconnect wave on pool 'pool'", finding.Message, StringComparison.Ordinal);
        Assert.Contains("about 250 ms each (the fastest open that made one)", finding.Message, StringComparison.Ordinal);
        Assert.Contains("not a pool-size problem", finding.Message, StringComparison.Ordinal);
        Assert.Equal(1, finding.Figures["afterLoss"]);
    }

    [Fact]
    public void A_wave_is_followed_for_thirty_seconds_at_most_and_ends_at_its_first_connect()
    {
        var fake = new Fake();
        var waves = new ConnectWaves();
        Assert.True(waves.InFirstWave(fake.Now, fake.Time, TimeSpan.FromSeconds(30)));
        fake.Time.Advance(TimeSpan.FromSeconds(29));
        Assert.True(waves.InFirstWave(fake.Now, fake.Time, TimeSpan.FromSeconds(30)));
        fake.Time.Advance(TimeSpan.FromSeconds(2));
        Assert.False(waves.InFirstWave(fake.Now, fake.Time, TimeSpan.FromSeconds(30))); // a warm pool that never connects

        waves.ConnectionsLost();
        Assert.True(waves.AfterLoss);
        Assert.True(waves.InFirstWave(fake.Now, fake.Time, TimeSpan.FromSeconds(30)));
        waves.Connected(fake.Now);
        fake.Time.Advance(Fake.Ms(1));
        Assert.False(waves.InFirstWave(fake.Now, fake.Time, TimeSpan.FromSeconds(30)));
    }
}
