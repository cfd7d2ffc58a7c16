using System.Data.Common;
using Orseis.Diagnostics;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace Orseis.Tests.Diagnostics;

/// <summary>
/// The Orseis meter as an OpenTelemetry user receives it: exported through the OpenTelemetry SDK (in-memory exporter)
/// with no view configured, so bucket boundaries come from the instruments' own advice.
/// </summary>
[Collection(DiagnosticsCollection.Name)]
public sealed class OpenTelemetryExportTests : DiagTest
{
    [Fact]
    public void Export_has_the_conventional_names_units_and_pool_tags()
    {
        List<MetricSnapshot> exported = Export(() =>
        {
            (Database db, _) = OpenTest();
            using (db)
            {
                for (int i = 0; i < 5; i++)
                    db.Query<string>("select name from items");
            }
        });

        var expected = new Dictionary<string, string>
        {
            ["db.client.connection.wait_time"] = "s",
            ["db.client.connection.use_time"] = "s",
            ["db.client.operation.duration"] = "s",
            ["orseis.connection.opens"] = "{open}",
            ["orseis.commands"] = "{command}",
        };
        foreach ((string name, string unit) in expected)
        {
            MetricSnapshot metric = Assert.Single(exported, m => m.Name == name);
            Assert.Equal(unit, metric.Unit);
            Dictionary<string, object?> tags = Tags(Assert.Single(Mine(metric)));
            Assert.Equal(Pool, tags["db.client.connection.pool.name"]);
            Assert.Equal("other_sql", tags["db.system.name"]); // TestDataSource's connection is no known provider
            Assert.False(tags.ContainsKey("error.type"), $"{name} has error.type on success");
        }

        Assert.Equal(MetricType.Histogram, exported.Single(m => m.Name == "db.client.operation.duration").MetricType);
        Assert.Equal(5, Mine(exported.Single(m => m.Name == "db.client.operation.duration")).Single().GetHistogramCount());
    }

    [Fact]
    public void Histogram_buckets_follow_the_advice_and_spread_measurements_so_percentiles_resolve()
    {
        List<MetricSnapshot> exported = Export(() =>
        {
            (Database db, TestDataSource source) = OpenTest();
            using (db)
            {
                // Opens: a pool hit (tens of microseconds), then 2 ms and 20 ms opens. Commands: a trivial one, then
                // counting CTEs of growing size (sub-millisecond to tens of milliseconds on any machine).
                foreach (int delayMs in new[] { 0, 0, 2, 2, 20, 20 })
                {
                    source.OpenDelay = TimeSpan.FromMilliseconds(delayMs);
                    db.Scalar<long>("select 1");
                }

                source.OpenDelay = TimeSpan.Zero;
                foreach (int rows in new[] { 10, 10, 100_000, 100_000, 1_000_000, 1_000_000 })
                    db.Scalar<long>($"with recursive c(x) as (select 1 union all select x + 1 from c limit {rows}) select count(*) from c");
            }
        });

        MetricPoint wait = Mine(exported.Single(m => m.Name == "db.client.connection.wait_time")).Single();
        AssertSpread(wait, "wait_time");
        Assert.Equal(OrseisMetrics.WaitBuckets, Bounds(wait));

        // The CTEs (no known operation) are one point; the "select 1" opens are another (db.operation.name=SELECT).
        MetricPoint duration = Mine(exported.Single(m => m.Name == "db.client.operation.duration"))
            .Single(p => !Tags(p).ContainsKey("db.operation.name"));
        AssertSpread(duration, "operation.duration");
        Assert.Equal([0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10], Bounds(duration)); // the OpenTelemetry DB conventions

        Assert.Equal(OrseisMetrics.UseBuckets, Bounds(Mine(exported.Single(m => m.Name == "db.client.connection.use_time")).Single()));
    }

    [Fact]
    public void Failures_carry_error_type_as_a_type_name_never_the_message()
    {
        List<MetricSnapshot> exported = Export(() =>
        {
            (Database db, TestDataSource source) = OpenTest();
            using (db)
            {
                Assert.ThrowsAny<DbException>(() => db.Execute("select * from no_such_table where name = 'secret-value'"));
                source.Failure = () => new InvalidOperationException("secret-message");
                Assert.Throws<InvalidOperationException>(() => db.Execute("select 1"));
            }
        });

        Dictionary<string, object?> failedCommand = Tags(Mine(exported.Single(m => m.Name == "db.client.operation.duration")).Single());
        Assert.Equal("Microsoft.Data.Sqlite.SqliteException", failedCommand["error.type"]);
        List<Dictionary<string, object?>> opens = [.. Mine(exported.Single(m => m.Name == "db.client.connection.wait_time")).Select(Tags)];
        Assert.Equal(2, opens.Count);
        Assert.Contains(opens, t => !t.ContainsKey("error.type"));
        Assert.Contains(opens, t => Equals(t.GetValueOrDefault("error.type"), "System.InvalidOperationException"));
        Assert.DoesNotContain(exported.SelectMany(Mine).SelectMany(Tags), t => t.Value?.ToString()?.Contains("secret", StringComparison.Ordinal) == true);
    }

    [Fact]
    public void Operation_duration_carries_server_address_port_and_namespace_never_user_or_password()
    {
        const string Cs = "Host=db.example.com;Port=5433;Database=shop;Username=alice;Password=hunter2";
        List<MetricSnapshot> exported = Export(() =>
        {
            using var telemetry = new PoolTelemetry(Pool, "postgresql", 100, new DiagnosticsOptions(), connectionString: Cs);
            telemetry.CommandCompleted(telemetry.CommandStarting("select 1"), succeeded: true);
            telemetry.CommandCompleted(telemetry.CommandStarting("select * from missing"), succeeded: false, new FakeSqlStateException("42P01"));
        });

        List<Dictionary<string, object?>> points = [.. Mine(exported.Single(m => m.Name == "db.client.operation.duration")).Select(Tags)];
        Assert.Equal(2, points.Count);
        foreach (Dictionary<string, object?> tags in points)
        {
            Assert.Equal("db.example.com", tags["server.address"]);
            Assert.Equal(5433, Convert.ToInt32(tags["server.port"], System.Globalization.CultureInfo.InvariantCulture));
            Assert.Equal("shop", tags["db.namespace"]);
            Assert.Equal("postgresql", tags["db.system.name"]);
            Assert.DoesNotContain(tags.Values, v => v?.ToString() is "alice" or "hunter2");
        }

        Dictionary<string, object?> failed = Assert.Single(points, t => t.ContainsKey("error.type"));
        Assert.Equal("42P01", failed["error.type"]);
        Assert.Equal("42P01", failed["db.response.status_code"]);
    }

    [Theory]
    [InlineData("postgresql", "Host=db1;Port=5433;Database=shop;Username=u;Password=p", "db1", 5433, "shop")]
    [InlineData("postgresql", "Server=db1:6432;DB=shop", "db1", 6432, "shop")]
    [InlineData("postgresql", "Host=db1,db2;Database=shop", null, null, "shop")]
    [InlineData("mysql", "Server=maria.local;Port=3307;Database=app;User ID=root;Password=p", "maria.local", 3307, "app")]
    [InlineData("mysql", "Data Source=maria.local;Initial Catalog=app", "maria.local", null, "app")]
    [InlineData("microsoft.sql_server", "Data Source=tcp:sql.local\\SQLEXPRESS,1444;Initial Catalog=Sales;User ID=sa;Password=p", "sql.local", 1444, "Sales")]
    [InlineData("microsoft.sql_server", "Server=sql.local;Database=Sales;Integrated Security=true", "sql.local", null, "Sales")]
    [InlineData("sqlite", "Data Source=/var/data/app.db", null, null, null)]
    public void Server_attributes_are_read_with_each_providers_keys(string system, string cs, string? address, int? port, string? ns)
    {
        Dictionary<string, object?> attributes = ProviderInfo.ServerAttributes(system, cs).ToDictionary(kv => kv.Key, kv => kv.Value);
        Assert.Equal(address, attributes.GetValueOrDefault("server.address"));
        Assert.Equal(port, (int?)attributes.GetValueOrDefault("server.port"));
        Assert.Equal(ns, attributes.GetValueOrDefault("db.namespace"));
        Assert.DoesNotContain(attributes.Values, v => v?.ToString() is "u" or "p" or "root" or "sa");
    }

    /// <summary>Runs <paramref name="work"/> under an OpenTelemetry MeterProvider for the Orseis meter and returns the export.</summary>
    private static List<MetricSnapshot> Export(Action work)
    {
        var exported = new List<MetricSnapshot>();
        using (MeterProvider provider = Sdk.CreateMeterProviderBuilder().AddMeter("Orseis").AddInMemoryExporter(exported).Build())
        {
            work();
            Assert.True(provider.ForceFlush(10_000));
        }

        return exported.GroupBy(m => m.Name).Select(g => g.Last()).ToList();
    }

    private IEnumerable<MetricPoint> Mine(MetricSnapshot metric) =>
        metric.MetricPoints.Where(p => Equals(Tags(p).GetValueOrDefault("db.client.connection.pool.name"), Pool));

    private static Dictionary<string, object?> Tags(MetricPoint point)
    {
        var tags = new Dictionary<string, object?>();
        foreach (KeyValuePair<string, object?> tag in point.Tags)
            tags[tag.Key] = tag.Value;
        return tags;
    }

    private static List<double> Bounds(MetricPoint point)
    {
        var bounds = new List<double>();
        foreach (HistogramBucket bucket in point.GetHistogramBuckets())
        {
            if (!double.IsPositiveInfinity(bucket.ExplicitBound))
                bounds.Add(bucket.ExplicitBound);
        }

        return bounds;
    }

    /// <summary>The measurements land in at least three buckets, so the median and the 95th percentile can differ.</summary>
    private static void AssertSpread(MetricPoint point, string name)
    {
        var counts = new List<(double Bound, long Count)>();
        foreach (HistogramBucket bucket in point.GetHistogramBuckets())
            counts.Add((bucket.ExplicitBound, bucket.BucketCount));
        string shown = string.Join(", ", counts.Where(c => c.Count > 0).Select(c => $"<={c.Bound}: {c.Count}"));
        Assert.True(counts.Count(c => c.Count > 0) >= 3, $"{name}: buckets used {shown}");
        Assert.True(counts[0].Count < point.GetHistogramCount(), $"{name}: everything in the first bucket ({shown})");
    }

    private sealed class FakeSqlStateException(string sqlState) : DbException("a failure whose message must not be exported")
    {
        public override string SqlState { get; } = sqlState;
    }
}
