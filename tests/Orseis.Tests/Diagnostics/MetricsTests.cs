using Orseis.Diagnostics;

namespace Orseis.Tests.Diagnostics;

[Collection(DiagnosticsCollection.Name)]
public sealed class MetricsTests : DiagTest
{
    [Fact]
    public void Every_call_records_wait_use_and_operation_time_in_seconds_with_pool_and_system_tags()
    {
        using var metrics = new MetricCollector(Pool);
        using Database db = Open();
        for (int i = 0; i < 3; i++)
            Assert.Equal(3, db.Query<string>("select name from items").Count);

        foreach (string name in new[] { "db.client.connection.wait_time", "db.client.connection.use_time", "db.client.operation.duration" })
        {
            IReadOnlyList<Measured> values = metrics.Of(name);
            Assert.Equal(3, values.Count);
            Assert.All(values, m =>
            {
                Assert.InRange(m.Value, 0, 30);
                Assert.Equal("sqlite", m.Tags["db.system.name"]);
                Assert.Equal(Pool, m.Tags["db.client.connection.pool.name"]);
            });
        }

        Assert.Equal(3, metrics.Of("orseis.connection.opens").Sum(m => m.Value));
        Assert.Equal(3, metrics.Of("orseis.commands").Sum(m => m.Value));
    }

    [Fact]
    public void Connection_count_pending_requests_and_sessions_are_observed()
    {
        using var metrics = new MetricCollector(Pool);
        using Database db = Open();
        using Session session = db.OpenSession();
        using Session other = db.OpenSession();

        Measured used = Assert.Single(metrics.Of("db.client.connection.count"));
        Assert.Equal(2, used.Value);
        Assert.Equal("used", used.Tags["db.client.connection.state"]);
        Assert.Equal(0, metrics.Of("db.client.connection.pending_requests").Last().Value);
        Assert.Equal(2, metrics.Of("orseis.sessions.active").Last().Value);
    }

    [Fact]
    public async Task A_disposed_database_is_no_longer_observed()
    {
        using var metrics = new MetricCollector(Pool);
        Database db = Open();
        db.Execute("select 1");
        Assert.Equal(0, Assert.Single(metrics.Of("orseis.sessions.active")).Value);

        await db.DisposeAsync();
        metrics.Measurements.Clear();
        Assert.Empty(metrics.Of("orseis.sessions.active"));
        Assert.Empty(metrics.Of("db.client.connection.count"));
    }

    [Fact]
    public void Pending_requests_counts_callers_inside_open()
    {
        using var metrics = new MetricCollector(Pool);
        (Database db, TestDataSource source) = OpenTest();
        using (db)
        {
            using var gate = new ManualResetEventSlim(false);
            source.Gate = gate;
            Task call = Task.Run(() => db.Execute("select 1"));
            SpinWait.SpinUntil(() => db.GetPoolReport().Pending == 1, TimeSpan.FromSeconds(20));
            Assert.Equal(1, metrics.Of("db.client.connection.pending_requests").Last().Value);
            gate.Set();
            call.Wait(TimeSpan.FromSeconds(20));
            metrics.Measurements.Clear();
            Assert.Equal(0, metrics.Of("db.client.connection.pending_requests").Last().Value);
        }
    }

    [Fact]
    public void Opens_per_command_is_one_in_open_per_call_and_falls_in_reuse()
    {
        using var metrics = new MetricCollector(Pool);
        using (Database perCall = Open())
        {
            for (int i = 0; i < 4; i++)
                perCall.Execute("select 1");
            Assert.Equal(1, metrics.Of("orseis.connection.opens_per_command").Last().Value);
        }

        metrics.Measurements.Clear();
        using Database reuse = Open(ExecutionMode.ReuseConnection);
        for (int i = 0; i < 4; i++)
            reuse.Execute("select 1");
        Assert.Equal(0.25, metrics.Of("orseis.connection.opens_per_command").Last().Value);
    }

    [Fact]
    public void Max_pool_size_comes_from_the_connection_string()
    {
        using var metrics = new MetricCollector(Pool);
        (Database db, _) = OpenTest("Maximum Pool Size=7");
        using (db)
        {
            Assert.Equal(7, Assert.Single(metrics.Of("db.client.connection.max")).Value);
            Assert.Equal(7, db.GetPoolReport().MaxPoolSize);
        }
    }

    [Fact]
    public void A_pool_timeout_counts_in_timeouts()
    {
        using var metrics = new MetricCollector(Pool);
        (Database db, TestDataSource source) = OpenTest("Max Pool Size=1");
        using (db)
        {
            source.Failure = () => new InvalidOperationException("Timeout expired. The timeout period elapsed prior to obtaining a connection from the pool.");
            Assert.Throws<PoolExhaustedException>(() => db.Execute("select 1"));
            Assert.Equal(1, metrics.Of("db.client.connection.timeouts").Sum(m => m.Value));
        }
    }

    [Fact]
    public void Reuse_waits_are_counted_and_timed()
    {
        using var metrics = new MetricCollector(Pool);
        using Database db = Open(ExecutionMode.ReuseConnection);
        IEnumerator<int> stream = db.Stream<int>("select id from items").GetEnumerator();
        Assert.True(stream.MoveNext());
        Task waiting = Task.Run(() => db.Execute("select 1"));
        SpinWait.SpinUntil(() => db.ReuseWaits == 1, TimeSpan.FromSeconds(20));
        stream.Dispose();
        waiting.Wait(TimeSpan.FromSeconds(20));
        Assert.Equal(1, metrics.Of("orseis.reuse.waits").Sum(m => m.Value));
        Assert.Single(metrics.Of("orseis.reuse.wait_time"));
    }

    [Fact]
    public void Findings_are_counted_by_kind()
    {
        using var metrics = new MetricCollector(Pool);
        using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.Churn;
            d.ChurnThreshold = 3;
        });
        for (int i = 0; i < 3; i++)
            db.Execute("select 1");
        Measured finding = Assert.Single(metrics.Of("orseis.findings"));
        Assert.Equal("Churn", finding.Tags["orseis.finding.kind"]);
    }
}
