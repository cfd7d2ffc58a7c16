using Orseis.IntegrationTests.Infrastructure;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace Orseis.IntegrationTests.Diagnostics;

/// <summary>
/// Orseis' meter next to the provider's own, both exported through the OpenTelemetry SDK as a user's backend gets them,
/// against real servers: the connection count summed over every connection-count instrument counts each connection once
/// (where the provider publishes its pool, Orseis' figure is under <c>orseis.connection.count</c>), and a failed
/// command's <c>error.type</c> and <c>db.response.status_code</c> are what the conventions ask per system.
/// </summary>
public sealed class TelemetryServerTests
{
    /// <summary>The connection-count instruments of the conventions, current and previous (MySqlConnector 2.6's) names.</summary>
    private static readonly string[] ConnectionCounts = ["db.client.connection.count", "db.client.connections.usage"];

    [PostgresFact]
    public Task Npgsql_and_Orseis_meters_count_each_connection_once() => Counts_add_up(
        new PostgresDialect(), "Npgsql", ";Application Name={0}", providerTotal: 3, ownNames: true, "42P01",
        durations: ["orseis.operation.duration"]);

    [MySqlFact]
    public Task MySqlConnector_and_Orseis_meters_count_each_connection_once() => Counts_add_up(
        new MySqlDialect(), "MySqlConnector", ";Application Name={0}", providerTotal: 3, ownNames: true, "1146",
        durations: ["db.client.operation.duration"]);

    [MySqlFact]
    public Task MySql_Data_has_no_meter_so_Orseis_publishes_the_conventional_count() => Counts_add_up(
        new MySqlDialect(MySqlProvider.MySqlData), "MySql.Data", "", providerTotal: 2, ownNames: false, "1146",
        durations: ["db.client.operation.duration"]);

    /// <summary>
    /// Three sessions opened, one closed (2 used, 1 idle in the provider's pool), one failed statement; then the export.
    /// <paramref name="providerTotal"/>: what summing every connection-count instrument for the pool must give.
    /// </summary>
    private static async Task Counts_add_up(
        Dialect dialect, string providerMeter, string uniquePool, long providerTotal, bool ownNames, string missingTable, string[] durations)
    {
        string marker = "orseis-count-" + Guid.NewGuid().ToString("N")[..8];
        string connectionString = dialect.ConnectionString + string.Format(System.Globalization.CultureInfo.InvariantCulture, uniquePool, marker);
        var exported = new List<MetricSnapshot>();
        using (MeterProvider meters = Sdk.CreateMeterProviderBuilder().AddMeter("Orseis", providerMeter).AddInMemoryExporter(exported).Build())
        {
            // A pool of a provider without a meter beside it, never opened: Orseis publishes its count under the
            // conventional name, which Npgsql's meter publishes too.
            await using var beside = new Database(MySql.Data.MySqlClient.MySqlClientFactory.Instance, "Server=127.0.0.1;Port=1");
            await using var db = new Database(dialect.Factory, connectionString, new OrseisOptions { PoolName = marker });
            Session first = await db.OpenSessionAsync(), second = await db.OpenSessionAsync(), third = await db.OpenSessionAsync();
            await third.DisposeAsync();
            Assert.Equal(1, await first.ScalarAsync<int>("select 1"));
            await Assert.ThrowsAnyAsync<System.Data.Common.DbException>(() => db.ExecuteAsync("select * from orseis_no_such_table"));
            Assert.True(meters.ForceFlush(10_000));
            exported = [.. exported]; // what the backend got while the sessions were open (the pool is cleared on disposal)
            await first.DisposeAsync();
            await second.DisposeAsync();
        }

        List<(string Name, long Value, Dictionary<string, object?> Tags)> points = [.. Points(exported, marker)];
        long counted = points.Where(p => ConnectionCounts.Contains(p.Name)).Sum(p => p.Value);
        Assert.True(providerTotal == counted, $"connection count summed over {string.Join(", ", ConnectionCounts)}: {counted}, expected "
            + $"{providerTotal}; points: {string.Join("; ", points.Where(p => ConnectionCounts.Contains(p.Name)).Select(Show))}");

        string count = ownNames ? "orseis.connection.count" : "db.client.connection.count";
        (string _, long used, Dictionary<string, object?> usedTags) = Assert.Single(points, p => p.Name == count && Equals(p.Tags.GetValueOrDefault("db.client.connection.pool.name"), marker));
        Assert.Equal(2, used);
        Assert.Equal("used", usedTags["db.client.connection.state"]);
        string other = ownNames ? "db.client.connection." : "orseis.connection.";
        Assert.DoesNotContain(points, p => Equals(p.Tags.GetValueOrDefault("db.client.connection.pool.name"), marker)
            && new[] { "count", "max", "pending_requests", "wait_time", "use_time", "timeouts" }.Any(suffix => p.Name == other + suffix));

        // The failed statement: the server's code, the SQLSTATE for PostgreSQL, the error number for MySQL.
        Dictionary<string, object?> failed = Assert.Single(
            points, p => durations.Contains(p.Name) && p.Tags.ContainsKey("error.type") && Equals(p.Tags["db.client.connection.pool.name"], marker)).Tags;
        Assert.Equal(missingTable, failed["error.type"]);
        Assert.Equal(missingTable, failed["db.response.status_code"]);
        Assert.Equal("SELECT", failed["db.operation.name"]);
        Assert.Equal("SELECT orseis_no_such_table", failed["db.query.summary"]);
    }

    /// <summary>Every exported point (sums and gauges as their value, histograms as their count) with a tag naming the pool.</summary>
    private static IEnumerable<(string Name, long Value, Dictionary<string, object?> Tags)> Points(List<MetricSnapshot> exported, string marker)
    {
        // The latest export of each instrument, by meter and name: both meters publish db.client.connection.count when a pool
        // of a provider without a meter (SQLite, MySql.Data) is alive beside an Npgsql one, as in another test running now.
        foreach (MetricSnapshot metric in exported.GroupBy(m => (m.MeterName, m.Name)).Select(g => g.Last()))
        {
            foreach (MetricPoint point in metric.MetricPoints)
            {
                var tags = new Dictionary<string, object?>();
                foreach (KeyValuePair<string, object?> tag in point.Tags)
                    tags[tag.Key] = tag.Value;
                if (!tags.Values.Any(v => v is string s && s.Contains(marker, StringComparison.Ordinal)))
                    continue;
                long value = metric.MetricType switch
                {
                    MetricType.LongSum or MetricType.LongSumNonMonotonic => point.GetSumLong(),
                    MetricType.LongGauge => point.GetGaugeLastValueLong(),
                    MetricType.Histogram => point.GetHistogramCount(),
                    _ => 0,
                };
                yield return (metric.Name, value, tags);
            }
        }
    }

    private static string Show((string Name, long Value, Dictionary<string, object?> Tags) point) =>
        $"{point.Name}={point.Value} [{string.Join(",", point.Tags.Where(t => t.Key.EndsWith("state", StringComparison.Ordinal)).Select(t => $"{t.Key}={t.Value}"))}]";
}
