using Orseis.Trace;
using Orseis.Trace.Monitor;

namespace Orseis.EndToEndTests;

/// <summary>The lines <c>orseis-trace monitor</c> prints, from the snapshots it takes.</summary>
public sealed class MonitorViewTests
{
    private static PoolSnapshot Pool(string system) =>
        new("orders", system, 2, 3, 1, 4, 10, 0, null, null, null, 0, null, []);

    [Fact]
    public void A_pool_is_named_with_its_database_system_once_a_meter_reading_gave_it()
    {
        var snapshot = new MonitorSnapshot(new DateTime(2026, 11, 26, 23, 0, 0), 1, [Pool("sqlite")], new ThreadPoolSnapshot(0, 3));
        Assert.StartsWith("[23:00:00] orders (sqlite): opens/s 2, commands/s 3, in use 1/10 max, idle 4",
            PlainView.Line(snapshot, snapshot.Pools[0]), StringComparison.Ordinal);
    }

    [Fact]
    public void A_pool_known_only_from_a_finding_is_named_without_an_empty_system()
    {
        var snapshot = new MonitorSnapshot(new DateTime(2026, 11, 26, 23, 0, 0), 1, [Pool("")], new ThreadPoolSnapshot(null, null));
        string line = PlainView.Line(snapshot, snapshot.Pools[0]);
        Assert.StartsWith("[23:00:00] orders: opens/s 2", line, StringComparison.Ordinal);
        Assert.DoesNotContain("()", line, StringComparison.Ordinal);
    }

    [Fact]
    public void A_pools_retries_are_shown_per_second_summed_over_their_reasons()
    {
        var state = new MonitorState(TimeSpan.FromSeconds(2));
        const string Tags = "db.client.connection.pool.name=orders,db.system.name=mysql";
        state.Add(new MetricValue("orseis.commands", "Rate", 100, Tags, ""));
        state.Add(new MetricValue("orseis.retries", "Rate", 6, Tags + ",orseis.retry.reason=open_failed", ""));
        state.Add(new MetricValue("orseis.retries", "Rate", 3, Tags + ",orseis.retry.reason=read_connection_broken", ""));

        MonitorSnapshot snapshot = state.Take();
        PoolSnapshot pool = Assert.Single(snapshot.Pools);
        Assert.Equal(4.5, pool.RetriesPerSecond);
        Assert.Contains("timeouts/s 0, retries/s 4.5; thread pool", PlainView.Line(snapshot, pool), StringComparison.Ordinal);

        // A rate is the interval's: the next interval without retries shows none.
        Assert.Equal(0, Assert.Single(state.Take().Pools).RetriesPerSecond);
    }
}
