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
            d.ChurnGap = TimeSpan.FromMinutes(5);
        });
        for (int i = 0; i < 5; i++)
            db.Execute("select 1");

        PoolFinding finding = Assert.Single(Findings(db, FindingKind.Churn));
        Assert.Equal(5, finding.Figures["opens"]);
        Assert.True(finding.Figures["savedMsPerSecond"] >= 0);
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
            d.ChurnGap = TimeSpan.FromMinutes(5);
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
            d.ChurnGap = TimeSpan.FromMinutes(5);
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
    public async Task Churn_sees_a_loop_of_QuerySingleAsync_and_QueryFirstAsync()
    {
        await using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.Churn;
            d.ChurnThreshold = 6;
            d.ChurnGap = TimeSpan.FromMinutes(5);
        });
        for (int i = 0; i < 3; i++)
        {
            await db.QuerySingleAsync<long>("select 1");
            await db.QueryFirstAsync<long>("select 1");
        }

        PoolFinding finding = Assert.Single(Findings(db, FindingKind.Churn));
        Assert.Equal(6, finding.Figures["opens"]);
        Assert.Contains(nameof(Churn_sees_a_loop_of_QuerySingleAsync_and_QueryFirstAsync), finding.Location, StringComparison.Ordinal);
    }

    [Fact]
    public void Saturation_fires_for_a_caller_that_queued_behind_held_connections()
    {
        (Database db, _) = OpenTest("Max Pool Size=2", d =>
        {
            d.Detectors = FindingKind.Saturation;
            d.QueueWaitFloor = TimeSpan.Zero;
        });
        using (db)
        {
            using Session a = db.OpenSession();
            using Session b = db.OpenSession();
            db.Execute("select 1");
            PoolFinding finding = Assert.Single(Findings(db, FindingKind.Saturation));
            Assert.Equal(3, finding.Figures["demand"]);
            Assert.Equal(1, finding.Figures["queued"]);
            Assert.Equal(3, db.GetPoolReport().PeakDemand);
        }
    }

    [Fact]
    public void A_light_load_under_a_big_pool_makes_no_pool_size_finding_only_a_report_line()
    {
        // Every detector but churn (a loop of calls on one flow is churn, rightly).
        (Database db, _) = OpenTest("Max Pool Size=1000", d => d.Detectors = FindingKind.All & ~FindingKind.Churn);
        using (db)
        {
            for (int i = 0; i < 20; i++)
                db.Execute("select 1");
            PoolReport report = db.GetPoolReport();
            Assert.Empty(report.Findings);
            // One connection busy at most, two spare per square root of it, and one (the mean hold carries the cold first call).
            Assert.InRange(report.RecommendedMaxPoolSize!.Value, 1, 4);
            Assert.Contains("more than this load uses", report.PoolSizeAdvice, StringComparison.Ordinal);
        }
    }
}
