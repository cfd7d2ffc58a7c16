using Orseis.Diagnostics;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Diagnostics;

/// <summary>Pool diagnostics against a real MariaDB: the MySQL provider's own pool timing out, and churn.</summary>
public sealed class MariaDbPoolDiagnosticsTests
{
    private static readonly MySqlDialect Dialect = new();

    /// <summary>The test server's connection string with extra settings (MySQL providers pool by connection string).</summary>
    private static string With(string settings) => Dialect.ConnectionString + ";" + settings;

    [MySqlFact]
    public void Pool_exhaustion_is_rethrown_as_PoolExhaustedException_with_a_snapshot()
    {
        using var db = new Database(Dialect.Factory, With("Maximum Pool Size=2;Connect Timeout=1"), new OrseisOptions
        {
            Diagnostics = { Detectors = FindingKind.PoolTimeout | FindingKind.HeldTooLong },
        });
        using Session first = db.OpenSession();
        using Session second = db.OpenSession();

        PoolExhaustedException error = Assert.Throws<PoolExhaustedException>(() => db.Scalar<int>("select 1"));

        Assert.Equal(Dialect.Factory.GetType().Assembly, error.InnerException!.GetType().Assembly);
        Assert.Equal((2, 1, 2), (error.InUse, error.Waiting, error.MaxPoolSize));
        Assert.Contains(nameof(Pool_exhaustion_is_rethrown_as_PoolExhaustedException_with_a_snapshot), error.LongestHolderLocation, StringComparison.Ordinal);
        Assert.Single(db.GetPoolReport().Findings, f => f.Kind == FindingKind.PoolTimeout);

        second.Dispose();
        Assert.Equal(1, db.Scalar<int>("select 1"));
    }

    [MySqlFact]
    public void Open_per_call_churn_is_reported_with_its_call_site_and_a_session_is_not()
    {
        using var perCall = new Database(Dialect.Factory, Dialect.ConnectionString, Churn());
        for (int i = 0; i < 25; i++)
            Assert.Equal(i, perCall.Scalar<int>("select @i", new { i }));
        PoolFinding finding = Assert.Single(perCall.GetPoolReport().Findings, f => f.Kind == FindingKind.Churn);
        Assert.Contains(nameof(Open_per_call_churn_is_reported_with_its_call_site_and_a_session_is_not), finding.Location, StringComparison.Ordinal);

        using var kept = new Database(Dialect.Factory, Dialect.ConnectionString, Churn());
        using (Session session = kept.OpenSession())
        {
            for (int i = 0; i < 25; i++)
                Assert.Equal(i, session.Scalar<int>("select @i", new { i }));
        }

        Assert.DoesNotContain(kept.GetPoolReport().Findings, f => f.Kind == FindingKind.Churn);
    }

    private static OrseisOptions Churn() => new()
    {
        Diagnostics = { Detectors = FindingKind.Churn, ChurnThreshold = 20, ChurnWindow = TimeSpan.FromSeconds(30) },
    };
}
