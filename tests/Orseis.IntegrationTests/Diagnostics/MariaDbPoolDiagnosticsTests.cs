using Orseis.Diagnostics;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Diagnostics;

/// <summary>Pool diagnostics against a real MariaDB, through both MySQL providers: their own pool timing out, and churn.</summary>
public sealed class MariaDbPoolDiagnosticsTests
{
    public static TheoryData<MySqlProvider> Providers => [MySqlProvider.MySqlConnector, MySqlProvider.MySqlData];

    [MySqlTheory]
    [MemberData(nameof(Providers))]
    public void Pool_exhaustion_is_rethrown_as_PoolExhaustedException_with_a_snapshot(MySqlProvider provider)
    {
        var dialect = new MySqlDialect(provider);
        // MySQL providers pool by connection string: these settings make a pool of its own.
        using var db = new Database(dialect.Factory, dialect.ConnectionString + ";Maximum Pool Size=2;Connect Timeout=1", new OrseisOptions
        {
            Diagnostics = { Detectors = FindingKind.PoolTimeout | FindingKind.HeldTooLong },
        });
        using Session first = db.OpenSession();
        using Session second = db.OpenSession();

        PoolExhaustedException error = Assert.Throws<PoolExhaustedException>(() => db.Scalar<int>("select 1"));

        Assert.Equal(dialect.Factory.GetType().Assembly, error.InnerException!.GetType().Assembly);
        Assert.Equal((2, 1, 2), (error.InUse, error.Waiting, error.MaxPoolSize));
        Assert.Contains(nameof(Pool_exhaustion_is_rethrown_as_PoolExhaustedException_with_a_snapshot), error.LongestHolderLocation, StringComparison.Ordinal);
        Assert.Single(db.GetPoolReport().Findings, f => f.Kind == FindingKind.PoolTimeout);

        second.Dispose();
        Assert.Equal(1, db.Scalar<int>("select 1"));
    }

    /// <summary>
    /// The longest holder acquired its connection through an awaited open: its location is still the test method (taken
    /// before the open is awaited), never the provider's or the thread pool's frames.
    /// </summary>
    [MySqlTheory]
    [MemberData(nameof(Providers))]
    public async Task Pool_exhaustion_names_a_holder_that_opened_asynchronously(MySqlProvider provider)
    {
        var dialect = new MySqlDialect(provider);
        await using var db = new Database(dialect.Factory, dialect.ConnectionString + ";Maximum Pool Size=2;Connect Timeout=1", new OrseisOptions
        {
            Diagnostics = { Detectors = FindingKind.PoolTimeout | FindingKind.HeldTooLong },
        });
        await using Session first = await db.OpenSessionAsync();
        await Task.Delay(50);
        using Session second = db.OpenSession();

        PoolExhaustedException sync = Assert.Throws<PoolExhaustedException>(() => db.Scalar<int>("select 1"));
        PoolExhaustedException async = await Assert.ThrowsAsync<PoolExhaustedException>(() => db.ScalarAsync<int>("select 1"));

        foreach (PoolExhaustedException error in new[] { sync, async })
        {
            string where = error.LongestHolderLocation ?? "";
            string firstFrame = where.Split('\n')[0];
            Assert.Contains(nameof(Pool_exhaustion_names_a_holder_that_opened_asynchronously), firstFrame, StringComparison.Ordinal);
            Assert.DoesNotContain("MySqlConnector", where, StringComparison.Ordinal);
            Assert.DoesNotContain("MySql.Data", where, StringComparison.Ordinal);
        }
    }

    [MySqlTheory]
    [MemberData(nameof(Providers))]
    public void Open_per_call_churn_is_reported_with_its_call_site_and_a_session_is_not(MySqlProvider provider)
    {
        var dialect = new MySqlDialect(provider);
        using var perCall = new Database(dialect.Factory, dialect.ConnectionString, Churn());
        // A pause longer than ChurnGap between two calls (this thread descheduled on a busy machine running other test
        // classes) starts a new streak, as it should: rounds of 25 calls go on until one streak reaches the threshold (bounded).
        PoolFinding? finding = null;
        for (int round = 0; round < 20 && finding is null; round++)
        {
            for (int i = 0; i < 25; i++)
                Assert.Equal(i, perCall.Scalar<int>("select @i", new { i }));
            finding = perCall.GetPoolReport().Findings.SingleOrDefault(f => f.Kind == FindingKind.Churn);
        }

        Assert.True(finding is not null, "no Churn finding after 20 rounds of 25 opens back to back");
        Assert.Contains(nameof(Open_per_call_churn_is_reported_with_its_call_site_and_a_session_is_not), finding.Location, StringComparison.Ordinal);

        using var kept = new Database(dialect.Factory, dialect.ConnectionString, Churn());
        using (Session session = kept.OpenSession())
        {
            for (int i = 0; i < 25; i++)
                Assert.Equal(i, session.Scalar<int>("select @i", new { i }));
        }

        Assert.DoesNotContain(kept.GetPoolReport().Findings, f => f.Kind == FindingKind.Churn);
    }

    private static OrseisOptions Churn() => new()
    {
        Diagnostics = { Detectors = FindingKind.Churn, ChurnThreshold = 20 },
    };
}

/// <summary>MySqlConnector's own pool meter, read in-process by Orseis, and a Database over a MySqlDataSource.</summary>
public sealed class MySqlConnectorPoolTests
{
    /// <summary>A pool of its own: MySqlConnector pools by connection string, so a unique Application Name makes one.</summary>
    private static string Private(string settings = "") =>
        new MySqlDialect().ConnectionString + $";Application Name=orseis-{Guid.NewGuid():N};" + settings;

    [MySqlFact]
    public void MySqlConnector_meter_tells_physical_connects_from_pool_hits_and_by_default_no_idle_or_used_count()
    {
        using var db = new Database(MySqlConnector.MySqlConnectorFactory.Instance, Private("Maximum Pool Size=5"), new OrseisOptions
        {
            Diagnostics = { Detectors = FindingKind.All },
        });
        for (int i = 0; i < 10; i++)
            Assert.Equal(i, db.Scalar<int>("select @i", new { i }));

        PoolReport report = db.GetPoolReport();
        Assert.Equal(1, report.ProviderPhysicalConnects);
        Assert.Null(report.ProviderIdle);
        Assert.Null(report.ProviderUsed);
        Assert.Contains("physical connects 1", report.ToString(), StringComparison.Ordinal);
        Assert.Contains("DiagnosticsOptions.ProviderPoolCounts", report.ToString(), StringComparison.Ordinal);
    }

    [MySqlFact]
    public void Only_the_pools_that_ask_show_MySqlConnector_s_idle_and_used_counts()
    {
        var quiet = new OrseisOptions { Diagnostics = { Detectors = FindingKind.All } };
        var counting = new OrseisOptions { Diagnostics = { Detectors = FindingKind.All, ProviderPoolCounts = true } };
        using var withoutCounts = new Database(MySqlConnector.MySqlConnectorFactory.Instance, Private(), quiet);
        using var withCounts = new Database(MySqlConnector.MySqlConnectorFactory.Instance, Private(), counting);
        for (int i = 0; i < 3; i++)
        {
            Assert.Equal(i, withoutCounts.Scalar<int>("select @i", new { i }));
            Assert.Equal(i, withCounts.Scalar<int>("select @i", new { i }));
        }

        // The counter is turned on for the process once a pool asks; a pool that did not ask still shows none.
        Assert.Null(withoutCounts.GetPoolReport().ProviderIdle);
        Assert.Equal(1, withoutCounts.GetPoolReport().ProviderPhysicalConnects);
        Assert.Equal(1, withCounts.GetPoolReport().ProviderIdle);
        Assert.Equal(0, withCounts.GetPoolReport().ProviderUsed);
    }

    [MySqlFact]
    public void MySqlConnector_meter_tells_idle_from_used_when_asked()
    {
        using var db = new Database(MySqlConnector.MySqlConnectorFactory.Instance, Private("Maximum Pool Size=5"), new OrseisOptions
        {
            Diagnostics = { Detectors = FindingKind.All, ProviderPoolCounts = true },
        });
        for (int i = 0; i < 10; i++)
            Assert.Equal(i, db.Scalar<int>("select @i", new { i }));

        PoolReport idle = db.GetPoolReport();
        Assert.Equal(10, idle.Opens);
        Assert.Equal(1, idle.ProviderPhysicalConnects); // one physical connect, nine pool hits
        Assert.Equal(1, idle.ProviderIdle);
        Assert.Equal(0, idle.ProviderUsed);
        Assert.Equal(5, idle.MaxPoolSize);
        Assert.Contains("MySqlConnector publishes pool data", idle.ToString(), StringComparison.Ordinal);

        using Session first = db.OpenSession();
        using Session second = db.OpenSession();
        PoolReport busy = db.GetPoolReport();
        Assert.Equal(2, busy.ProviderUsed);
        Assert.Equal(0, busy.ProviderIdle);
        Assert.Equal(2, busy.ProviderPhysicalConnects);
    }

    [MySqlFact]
    public async Task A_database_over_a_MySqlDataSource_runs_calls_and_names_its_pool_without_credentials()
    {
        var builder = new MySqlConnector.MySqlConnectionStringBuilder(Private());
        await using var source = new MySqlConnector.MySqlDataSource(builder.ConnectionString);
        await using var db = new Database(source, new OrseisOptions
        {
            Mode = ExecutionMode.ReuseConnection,
            Diagnostics = { Detectors = FindingKind.All, ProviderPoolCounts = true },
        });

        Assert.Equal(42, await db.ScalarAsync<int>("select @x", new { x = 42 }));
        Assert.Equal($"mysql:{builder.Server}:{builder.Port}/{builder.Database}", db.PoolName);
        Assert.DoesNotContain("password", db.GetPoolReport().ToString(), StringComparison.OrdinalIgnoreCase);
        Assert.Equal(1, db.GetPoolReport().ProviderUsed); // the reuse connection is held
    }
}
