using System.Diagnostics.Metrics;
using Npgsql;
using Orseis.Diagnostics;

namespace Orseis.IntegrationTests.Diagnostics;

/// <summary>Pool diagnostics against a real PostgreSQL: a real pool timeout, and Npgsql's own pool meter read in-process.</summary>
public sealed class PoolDiagnosticsTests
{
    /// <summary>A pool of its own (Npgsql pools by connection string), with extra settings.</summary>
    private static string Private(string settings) =>
        new NpgsqlConnectionStringBuilder(PostgresDiagnosticsFactAttribute.ConnectionString + ";" + settings)
        {
            ApplicationName = "orseis-diag-" + Guid.NewGuid().ToString("N")[..8],
        }.ConnectionString;

    [PostgresDiagnosticsFact]
    public void Npgsql_pool_exhaustion_is_rethrown_as_PoolExhaustedException_with_a_snapshot()
    {
        string cs = Private("Maximum Pool Size=2;Timeout=1");
        using var db = new Database(NpgsqlFactory.Instance, cs, new OrseisOptions
        {
            Diagnostics = { Detectors = FindingKind.PoolTimeout | FindingKind.HeldTooLong },
        });
        using Session first = db.OpenSession();
        using Session second = db.OpenSession();

        PoolExhaustedException error = Assert.Throws<PoolExhaustedException>(() => db.Scalar<int>("select 1"));

        Assert.IsType<NpgsqlException>(error.InnerException);
        Assert.Equal(2, error.InUse);
        Assert.Equal(1, error.Waiting);
        Assert.Equal(2, error.MaxPoolSize);
        Assert.NotNull(error.LongestHeld);
        Assert.Contains(nameof(Npgsql_pool_exhaustion_is_rethrown_as_PoolExhaustedException_with_a_snapshot), error.LongestHolderLocation, StringComparison.Ordinal);
        PoolReport report = db.GetPoolReport();
        Assert.Equal(1, report.Timeouts);
        Assert.Single(report.Findings, f => f.Kind == FindingKind.PoolTimeout);

        // Once a holder gives its connection back, calls work again.
        second.Dispose();
        Assert.Equal(1, db.Scalar<int>("select 1"));
    }

    [PostgresDiagnosticsFact]
    public void Npgsql_meter_tells_physical_connects_from_pool_hits_and_idle_from_used()
    {
        using var db = new Database(NpgsqlFactory.Instance, Private("Maximum Pool Size=5"), new OrseisOptions
        {
            Diagnostics = { Detectors = FindingKind.All },
        });
        for (int i = 0; i < 10; i++)
            Assert.Equal(i, db.Scalar<int>("select @i", new { i }));

        PoolReport idle = db.GetPoolReport();
        Assert.Equal(10, idle.Opens);
        Assert.Equal(1, idle.ProviderPhysicalConnects); // one physical connect, nine pool hits
        Assert.Equal(1, idle.ProviderIdle);
        Assert.Equal(0, idle.ProviderUsed);
        Assert.Equal(5, idle.MaxPoolSize);
        Assert.Contains("Npgsql publishes pool data", idle.ToString(), StringComparison.Ordinal);

        using Session session = db.OpenSession();
        PoolReport busy = db.GetPoolReport();
        Assert.Equal(1, busy.ProviderUsed);
        Assert.Equal(0, busy.ProviderIdle);
        Assert.Contains("physical connects 1", busy.ToString(), StringComparison.Ordinal);
    }

    [PostgresDiagnosticsFact]
    public void With_detectors_reading_Npgsql_s_pool_the_Orseis_meter_still_publishes_only_its_own_used_count()
    {
        string pool = "diag-" + Guid.NewGuid().ToString("N")[..8];
        using var db = new Database(NpgsqlFactory.Instance, Private(""), new OrseisOptions
        {
            PoolName = pool,
            Diagnostics = { Detectors = FindingKind.SlowOpen },
        });
        db.Scalar<int>("select 1");
        db.Scalar<int>("select 1");

        var counts = new Dictionary<string, long>();
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter.Name == "Orseis" && instrument.Name is "db.client.connection.count" or "orseis.connection.count")
                    l.EnableMeasurementEvents(instrument);
            },
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
        {
            string? name = null, state = null;
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == "db.client.connection.pool.name")
                    name = tag.Value as string;
                if (tag.Key == "db.client.connection.state")
                    state = tag.Value as string;
            }

            if (name == pool && state is not null)
                counts[$"{instrument.Name} {state}"] = value;
        });
        listener.Start();
        listener.RecordObservableInstruments();

        // Npgsql's meter publishes its pool's idle and used connections itself: Orseis republishing them would count each
        // connection twice in a backend summing db.client.connection.count, so its own count is under orseis.* (used only).
        Assert.Equal(0, Assert.Single(counts, c => c.Key == "orseis.connection.count used").Value);
        Assert.Single(counts);
        Assert.Equal(1, db.GetPoolReport().ProviderIdle); // the report still reads it
    }

    [PostgresDiagnosticsFact]
    public void Without_detectors_Npgsql_is_not_listened_to()
    {
        using var db = new Database(NpgsqlFactory.Instance, Private(""));
        db.Scalar<int>("select 1");
        PoolReport report = db.GetPoolReport();
        Assert.Null(report.ProviderPhysicalConnects);
        Assert.Equal(100, report.MaxPoolSize); // Npgsql's default
    }
}
