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
            new InvalidOperationException("x"), OpenTimeout.PoolWait, "pool", 4, held: 4, parked: 0, waiting: 1, idle: 0, (TimeSpan.FromSeconds(3), "at Holder.Method"));
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
            OpenTimeout.PoolWait, "pool", 5, held: 0, parked: 0, waiting: 10, idle: 0, (null, null));
        PoolExhaustedException connect = PoolExhaustion.Explain(new InvalidOperationException("Connect Timeout expired."),
            OpenTimeout.Connect, "pool", 5, held: 0, parked: 0, waiting: 10, idle: 0, (null, null));
        foreach (PoolExhaustedException e in (PoolExhaustedException[])[waited, connect])
        {
            Assert.Contains("not full of held connections: 0 of 5 were held", e.Message, StringComparison.Ordinal);
            Assert.Contains("raising Max Pool Size will not help", e.Message, StringComparison.Ordinal);
            Assert.Equal(5, e.Connecting);
        }
    }
    [Fact]
    public void A_pool_taken_by_connections_parked_in_scopes_is_not_blamed_on_the_server()
    {
        var fake = new Fake();
        PoolExhaustedException error = PoolExhaustion.Explain(new InvalidOperationException("Connect Timeout expired. All pooled connections are in use."),
            OpenTimeout.PoolWait, "pool", 3, held: 0, parked: 3, waiting: 1, idle: 0, (null, null));
        Assert.Equal(0, error.Connecting);
        Assert.Equal(3, error.Parked);
        Assert.Equal(0, error.InUse);
        Assert.Contains("3 more were parked in connection scopes", error.Message, StringComparison.Ordinal);
        Assert.Contains("Every connection was taken: 0 held by calls and 3 parked in connection scopes", error.Message, StringComparison.Ordinal);
        Assert.Contains("ScopeIdleWindow", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("not answering new connections", error.Message, StringComparison.Ordinal);

        new PoolTimeoutDetector(fake.Log).Report(error);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.PoolTimeout));
        Assert.Equal(3, finding.Figures["parked"]);
        Assert.Equal(0, finding.Figures["connecting"]);
    }

    [Fact]
    public void Parked_connections_are_left_out_of_the_connects_that_never_complete()
    {
        // Five slots: two held, one parked, nothing idle: two callers' connects are what did not complete, not three.
        PoolExhaustedException error = PoolExhaustion.Explain(new InvalidOperationException("Connect Timeout expired."),
            OpenTimeout.Connect, "pool", 5, held: 2, parked: 1, waiting: 4, idle: 0, (null, null));
        Assert.Equal(2, error.Connecting);
        Assert.Contains("2 of 5 were held, 1 parked in connection scopes, and about 2 open(s)", error.Message, StringComparison.Ordinal);
        Assert.Contains("not answering new connections", error.Message, StringComparison.Ordinal);
    }
}
