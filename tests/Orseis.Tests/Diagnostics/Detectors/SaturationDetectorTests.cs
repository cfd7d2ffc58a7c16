using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

public sealed class SaturationDetectorTests
{
    [Fact]
    public void A_burst_arriving_at_an_empty_pool_queues_and_is_named()
    {
        var fake = new Fake();
        var saturation = new SaturationDetector(fake.Log, maxPoolSize: 100);
        // The 130th caller of a burst: nothing held yet, 129 others inside Open.
        saturation.OnOpenCompleted(fake.Start(demand: 130, inUse: 0), new OpenOutcome(Fake.Ms(1000), 0, 0, Queued: true));

        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.Saturation));
        Assert.Equal(30, finding.Figures["queued"]);
        Assert.Contains("queueing for the pool, not a slow server", finding.Message, StringComparison.Ordinal);
        Assert.Equal(1, saturation.QueuedOpens);
    }

    [Fact]
    public void Callers_that_did_not_queue_or_barely_waited_are_not_saturation()
    {
        var fake = new Fake();
        var saturation = new SaturationDetector(fake.Log, maxPoolSize: 100);
        saturation.OnOpenCompleted(fake.Start(demand: 100, inUse: 99), new OpenOutcome(Fake.Ms(500), 0, 0, Queued: false));
        saturation.OnOpenCompleted(fake.Start(demand: 101, inUse: 100), new OpenOutcome(Fake.Ms(2), 0, 0, Queued: true));
        Assert.Empty(fake.Findings(FindingKind.Saturation));
        Assert.Equal(0, saturation.QueuedOpens);
    }

    [Fact]
    public void Queued_is_judged_from_demand_at_one_instant()
    {
        Assert.True(new OpenStart(1, InUse: 0, Demand: 101, 0, 0, true).Queued(100));
        Assert.False(new OpenStart(1, InUse: 100, Demand: 100, 0, 0, true).Queued(100));
        Assert.False(new OpenStart(1, InUse: 5, Demand: 500, 0, 0, true).Queued(null));
    }
}
