using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

public sealed class PoolTimeoutDetectorTests
{
    [Fact]
    public void A_pool_full_of_held_connections_is_exhaustion()
    {
        var fake = new Fake();
        PoolExhaustedException error = PoolExhaustion.Explain(
            new InvalidOperationException("x"), OpenTimeout.PoolWait, "pool", 4, held: 4, waiting: 1, idle: 0, (TimeSpan.FromSeconds(3), "at Holder.Method"));
        Assert.Contains("Every connection was held by callers", error.Message, StringComparison.Ordinal);
        Assert.Contains("at Holder.Method", error.Message, StringComparison.Ordinal);
        Assert.Equal(0, error.Connecting);

        new PoolTimeoutDetector(fake.Log).Report(error);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.PoolTimeout));
        Assert.Equal(error.Message, finding.Message);
        Assert.Equal("at Holder.Method", finding.Location);
        Assert.Equal(4, finding.Figures["maxPoolSize"]);
        Assert.Equal(3000, finding.Figures["longestHeldMs"]);
    }

    [Fact]
    public void Connects_that_never_complete_are_told_apart_and_both_provider_forms_read_alike()
    {
        PoolExhaustedException waited = PoolExhaustion.Explain(new InvalidOperationException("Connect Timeout expired. All pooled connections are in use."),
            OpenTimeout.PoolWait, "pool", 5, held: 0, waiting: 10, idle: 0, (null, null));
        PoolExhaustedException connect = PoolExhaustion.Explain(new InvalidOperationException("Connect Timeout expired."),
            OpenTimeout.Connect, "pool", 5, held: 0, waiting: 10, idle: 0, (null, null));
        foreach (PoolExhaustedException e in (PoolExhaustedException[])[waited, connect])
        {
            Assert.Contains("not full of held connections: 0 of 5 were held", e.Message, StringComparison.Ordinal);
            Assert.Contains("raising Max Pool Size will not help", e.Message, StringComparison.Ordinal);
            Assert.Equal(5, e.Connecting);
        }
    }
}
