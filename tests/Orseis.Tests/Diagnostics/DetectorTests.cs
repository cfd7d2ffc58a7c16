using Orseis.Diagnostics;

namespace Orseis.Tests.Diagnostics;

/// <summary>Each detector on a scenario that must fire it and one that must not. Thresholds are set so timing noise cannot flip them.</summary>
[Collection(DiagnosticsCollection.Name)]
public sealed class DetectorTests : DiagTest
{
    private static IEnumerable<PoolFinding> Findings(Database db, FindingKind kind) => db.GetPoolReport().Findings.Where(f => f.Kind == kind);

    [Fact]
    public void Churn_fires_on_many_opens_in_a_row_on_one_flow_and_names_the_call_site()
    {
        using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.Churn;
            d.ChurnThreshold = 5;
            d.ChurnWindow = TimeSpan.FromMinutes(5);
        });
        for (int i = 0; i < 5; i++)
            db.Execute("select 1");

        PoolFinding finding = Assert.Single(Findings(db, FindingKind.Churn));
        Assert.Equal(5, finding.Figures["opens"]);
        Assert.True(finding.Figures["savedMs"] >= 0);
        Assert.Contains(nameof(Churn_fires_on_many_opens_in_a_row_on_one_flow_and_names_the_call_site), finding.Location, StringComparison.Ordinal);
        Assert.Contains("would save", finding.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Churn_follows_an_async_flow_across_awaits()
    {
        await using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.Churn;
            d.ChurnThreshold = 5;
            d.ChurnWindow = TimeSpan.FromMinutes(5);
        });
        for (int i = 0; i < 5; i++)
        {
            await db.ExecuteAsync("select 1");
            await Task.Yield();
        }

        Assert.Single(Findings(db, FindingKind.Churn));
    }

    [Fact]
    public void Churn_does_not_fire_when_calls_reuse_one_session_or_come_from_separate_flows()
    {
        using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.Churn;
            d.ChurnThreshold = 5;
            d.ChurnWindow = TimeSpan.FromMinutes(5);
        });
        using (Session session = db.OpenSession())
        {
            for (int i = 0; i < 20; i++)
                session.Execute("select 1");
        }

        // Four opens each on separate flows (each thread starts its own flow).
        var threads = Enumerable.Range(0, 5).Select(_ => new Thread(() =>
        {
            for (int i = 0; i < 4; i++)
                db.Execute("select 1");
        })).ToList();
        threads.ForEach(t => t.UnsafeStart()); // no captured context: each thread is a flow of its own
        threads.ForEach(t => t.Join());

        Assert.Empty(Findings(db, FindingKind.Churn));
    }

    [Fact]
    public void Slow_open_fires_when_an_open_is_far_slower_than_the_usual()
    {
        (Database db, TestDataSource source) = OpenTest(diagnostics: d =>
        {
            d.Detectors = FindingKind.SlowOpen;
            d.SlowOpenFloor = TimeSpan.FromMilliseconds(100);
            d.SlowOpenFactor = 2;
            d.FindingInterval = TimeSpan.Zero;
        });
        using (db)
        {
            for (int i = 0; i < 6; i++)
                db.Execute("select 1");
            source.OpenDelay = TimeSpan.FromMilliseconds(400);
            db.Execute("select 1");

            Assert.Contains(Findings(db, FindingKind.SlowOpen), f => f.Figures["openMs"] >= 390 && f.Figures["factor"] >= 2);
        }
    }

    [Fact]
    public void Slow_open_does_not_fire_under_the_floor_or_without_a_baseline()
    {
        (Database db, TestDataSource source) = OpenTest(diagnostics: d =>
        {
            d.Detectors = FindingKind.SlowOpen;
            d.SlowOpenFloor = TimeSpan.FromSeconds(20);
        });
        using (db)
        {
            source.OpenDelay = TimeSpan.FromMilliseconds(200);
            db.Execute("select 1"); // the first opens build the baseline: never a finding
            source.OpenDelay = TimeSpan.Zero;
            for (int i = 0; i < 6; i++)
                db.Execute("select 1");
            source.OpenDelay = TimeSpan.FromMilliseconds(200); // slow, but under the 20 s floor
            db.Execute("select 1");
            Assert.Empty(Findings(db, FindingKind.SlowOpen));
        }
    }

    [Fact]
    public void Saturation_fires_when_a_caller_opens_while_the_pool_is_nearly_full()
    {
        (Database db, _) = OpenTest("Max Pool Size=2", d => d.Detectors = FindingKind.Saturation);
        using (db)
        {
            using Session a = db.OpenSession();
            using Session b = db.OpenSession();
            db.Execute("select 1");
            PoolFinding finding = Assert.Single(Findings(db, FindingKind.Saturation));
            Assert.Equal(2, finding.Figures["inUse"]);
            Assert.Equal(2, finding.Figures["maxPoolSize"]);
        }
    }

    [Fact]
    public void Saturation_does_not_fire_with_room_in_the_pool_or_an_unknown_max()
    {
        (Database db, _) = OpenTest("Max Pool Size=100", d => d.Detectors = FindingKind.Saturation);
        using (db)
        {
            using Session a = db.OpenSession();
            using Session b = db.OpenSession();
            db.Execute("select 1");
            Assert.Empty(Findings(db, FindingKind.Saturation));
        }

        using Database sqlite = Open(diagnostics: d => d.Detectors = FindingKind.Saturation);
        using Session c = sqlite.OpenSession();
        sqlite.Execute("select 1");
        Assert.Empty(Findings(sqlite, FindingKind.Saturation));
    }

    [Fact]
    public void A_pool_timeout_becomes_PoolExhaustedException_with_a_snapshot_and_a_finding()
    {
        (Database db, TestDataSource source) = OpenTest("Max Pool Size=1", d => d.Detectors = FindingKind.PoolTimeout | FindingKind.HeldTooLong);
        using (db)
        {
            using Session holder = db.OpenSession();
            var providerError = new InvalidOperationException("Timeout expired.  The timeout period elapsed prior to obtaining a connection from the pool.");
            source.Failure = () => providerError;

            PoolExhaustedException error = Assert.Throws<PoolExhaustedException>(() => db.Execute("select 1"));
            Assert.Same(providerError, error.InnerException);
            Assert.Equal(1, error.InUse);
            Assert.Equal(1, error.Waiting);
            Assert.Equal(1, error.MaxPoolSize);
            Assert.NotNull(error.LongestHeld);
            Assert.Contains(nameof(A_pool_timeout_becomes_PoolExhaustedException_with_a_snapshot_and_a_finding), error.LongestHolderLocation, StringComparison.Ordinal);
            Assert.Contains("Max Pool Size is 1", error.Message, StringComparison.Ordinal);
            Assert.Single(Findings(db, FindingKind.PoolTimeout));
            Assert.Equal(1, db.GetPoolReport().Timeouts);
        }
    }

    [Fact]
    public void Other_open_failures_pass_through_unchanged()
    {
        (Database db, TestDataSource source) = OpenTest(diagnostics: d => d.Detectors = FindingKind.All);
        using (db)
        {
            source.Failure = () => new InvalidOperationException("The server refused the login.");
            InvalidOperationException error = Assert.Throws<InvalidOperationException>(() => db.Execute("select 1"));
            Assert.Equal("The server refused the login.", error.Message);
            Assert.Empty(Findings(db, FindingKind.PoolTimeout));
        }
    }

    [Theory]
    [InlineData("The connection pool has been exhausted, either raise 'Max Pool Size' (currently 2) or 'Timeout' (currently 1 seconds) in your connection string.", true)]
    [InlineData("Timeout expired.  The timeout period elapsed prior to obtaining a connection from the pool.  This may have occurred because all pooled connections were in use and max pool size was reached.", true)]
    [InlineData("Connect Timeout expired. All pooled connections are in use.", true)]
    [InlineData("Connection refused", false)]
    [InlineData("Timeout during reading attempt", false)]
    public void Provider_pool_timeouts_are_recognised_by_message(string message, bool expected) =>
        Assert.Equal(expected, PoolTimeouts.IsPoolTimeout(new InvalidOperationException(message)));

    [Fact]
    public void Held_too_long_fires_for_a_session_held_past_the_threshold_with_its_acquiring_stack()
    {
        using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.HeldTooLong;
            d.HeldTooLongThreshold = TimeSpan.FromMilliseconds(200);
        });
        using Session leaked = db.OpenSession();
        Thread.Sleep(400);

        PoolFinding finding = Assert.Single(Findings(db, FindingKind.HeldTooLong));
        Assert.Equal(1, finding.Figures["stillHeld"]);
        Assert.Contains(nameof(Held_too_long_fires_for_a_session_held_past_the_threshold_with_its_acquiring_stack), finding.Location, StringComparison.Ordinal);
        Assert.Contains("session on", finding.Message, StringComparison.Ordinal);
        // Reported once per connection, not on every check.
        db.Execute("select 1");
        Assert.Single(Findings(db, FindingKind.HeldTooLong), f => f.Message.Contains("session on", StringComparison.Ordinal));
    }

    [Fact]
    public void Held_too_long_does_not_fire_under_the_threshold()
    {
        using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.HeldTooLong;
            d.HeldTooLongThreshold = TimeSpan.FromHours(1);
        });
        using (Session session = db.OpenSession())
            session.Execute("select 1");
        db.Execute("select 1");
        Assert.Empty(Findings(db, FindingKind.HeldTooLong));
    }

    [Fact]
    public void Held_too_long_never_fires_for_the_shared_connection_of_ReuseConnection_mode()
    {
        using Database db = Open(ExecutionMode.ReuseConnection, d =>
        {
            d.Detectors = FindingKind.HeldTooLong;
            d.HeldTooLongThreshold = TimeSpan.FromMilliseconds(50);
        });
        db.Execute("select 1");
        Thread.Sleep(200);
        db.Execute("select 1");
        PoolReport report = db.GetPoolReport();
        Assert.Empty(report.Findings);
        Assert.Equal(1, report.InUse); // still counted as held
    }

    [Fact]
    public void Thread_pool_starvation_fires_for_a_sync_call_while_the_queue_is_long()
    {
        using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.ThreadPoolStarvation;
            d.ThreadPoolQueueThreshold = 20;
        });
        var release = new ManualResetEventSlim(false); // never disposed: queued items may still read it
        try
        {
            for (int i = 0; i < 200; i++)
                ThreadPool.UnsafeQueueUserWorkItem(_ => release.Wait(TimeSpan.FromSeconds(30)), null);
            Assert.True(ThreadPool.PendingWorkItemCount >= 20, $"queue only {ThreadPool.PendingWorkItemCount}");
            db.Execute("select 1");
        }
        finally
        {
            release.Set();
        }

        PoolFinding finding = Assert.Single(Findings(db, FindingKind.ThreadPoolStarvation));
        Assert.True(finding.Figures["queuedWorkItems"] >= 20);
    }

    [Fact]
    public async Task Thread_pool_starvation_does_not_fire_for_async_calls_or_a_short_queue()
    {
        await using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.ThreadPoolStarvation;
            d.ThreadPoolQueueThreshold = 100_000;
        });
        db.Execute("select 1");
        await db.ExecuteAsync("select 1");
        Assert.Empty(Findings(db, FindingKind.ThreadPoolStarvation));
    }

    [Fact]
    public void Pool_size_advice_warns_when_max_is_below_peak_demand()
    {
        (Database db, _) = OpenTest("Max Pool Size=1", d => d.Detectors = FindingKind.PoolSize);
        using (db)
        {
            using (Session a = db.OpenSession())
            using (Session b = db.OpenSession())
            using (Session c = db.OpenSession())
                a.Execute("select 1");
            PoolReport report = db.GetPoolReport();
            PoolFinding finding = Assert.Single(report.Findings, f => f.Kind == FindingKind.PoolSize);
            Assert.Contains("below the peak demand", finding.Message, StringComparison.Ordinal);
            Assert.Equal(3, finding.Figures["peakDemand"]);
            Assert.True(report.RecommendedMaxPoolSize >= 3);
        }
    }

    [Fact]
    public void Pool_size_advice_warns_when_max_is_far_above_the_load()
    {
        (Database db, _) = OpenTest("Max Pool Size=1000", d => d.Detectors = FindingKind.PoolSize);
        using (db)
        {
            for (int i = 0; i < 5; i++)
                db.Execute("select 1");
            PoolFinding finding = Assert.Single(Findings(db, FindingKind.PoolSize));
            Assert.Contains("far above", finding.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Pool_size_advice_is_quiet_when_max_fits_the_load()
    {
        (Database db, _) = OpenTest("Max Pool Size=2", d => d.Detectors = FindingKind.PoolSize);
        using (db)
        {
            for (int i = 0; i < 5; i++)
                db.Execute("select 1");
            PoolReport report = db.GetPoolReport();
            Assert.Empty(report.Findings);
            Assert.InRange(report.RecommendedMaxPoolSize!.Value, 1, 2);
        }
    }
}
