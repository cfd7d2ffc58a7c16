using MySqlConnector;
using Orseis.Diagnostics;
using Orseis.IntegrationTests.Diagnostics;

namespace Orseis.IntegrationTests.Faults;

/// <summary>
/// Detectors on real pathologies, on the fault tests' private MariaDB (they change server settings and block the thread
/// pool, so they run alone): a cold burst against slow connects, and thread-pool starvation checked against the
/// runtime's own events. Each has its clean counterpart, which must stay silent.
/// </summary>
[Collection(FaultCollection.Name)]
public sealed class DetectorFaultTests(PrivateMariaDb server)
{
    private Database Open(string settings = "") =>
        new(MySqlConnectorFactory.Instance, $"{server.ConnectionString};Application Name=orseis-{Guid.NewGuid():N};{settings}",
            new OrseisOptions { Diagnostics = { Detectors = FindingKind.All } });

    private async Task SlowConnects(double? seconds)
    {
        var admin = new MySqlConnectionStringBuilder(server.ConnectionString) { UserID = "root", Password = "", Pooling = false };
        await using var connection = new MySqlConnection(admin.ConnectionString);
        await connection.OpenAsync();
        await using MySqlCommand command = connection.CreateCommand();
        command.CommandText = seconds is { } s ? $"SET GLOBAL init_connect='DO SLEEP({s:0.0##})'" : "SET GLOBAL init_connect=''";
        await command.ExecuteNonQueryAsync();
    }

    [FaultFact]
    public async Task A_cold_burst_against_slow_connects_is_named_a_cold_pool_and_a_warm_load_is_silent()
    {
        await using Database db = Open();
        var sessions = await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => db.OpenSessionAsync()));
        foreach (Session s in sessions)
            await s.DisposeAsync();
        // Warm: 4 callers on 4 warm connections, a request each, for a second.
        DateTime end = DateTime.UtcNow.AddSeconds(1);
        await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Run(async () =>
        {
            while (DateTime.UtcNow < end)
            {
                await db.ExecuteAsync("select 1");
                await Task.Delay(5);
            }
        })));
        Assert.Empty(db.GetPoolReport().Findings);

        await SlowConnects(0.3);
        try
        {
            await Task.WhenAll(Enumerable.Range(0, 30).Select(_ => Task.Run(() => db.ExecuteAsync("select 1"))));
        }
        finally
        {
            await SlowConnects(null);
        }

        PoolReport report = db.GetPoolReport();
        PoolFinding finding = Assert.Single(report.Findings);
        Assert.Equal(FindingKind.SlowOpen, finding.Kind);
        Assert.StartsWith("Cold pool", finding.Message, StringComparison.Ordinal);
        Assert.InRange(finding.Figures["connectMs"], 290, 5000);
        Assert.True(report.ProviderPhysicalConnects >= 30, report.ToString());
    }

    [FaultFact]
    public async Task Blocked_pool_threads_are_starvation_as_the_runtime_says_and_awaited_calls_are_not()
    {
        using var runtime = new RuntimeThreadPoolEvents();
        await using (Database calm = Open())
        {
            await Task.WhenAll(Enumerable.Range(0, 20).Select(_ => Task.Run(() => calm.ExecuteAsync("do sleep(1)"))));
            Assert.Empty(calm.GetPoolReport().Findings);
            Assert.Equal(0, runtime.StarvationAdjustments);
        }

        await using Database db = Open();
        await Task.WhenAll(Enumerable.Range(0, 20).Select(_ => Task.Run(() => db.Execute("do sleep(1)"))));

        PoolFinding finding = Assert.Single(db.GetPoolReport().Findings);
        Assert.Equal(FindingKind.ThreadPoolStarvation, finding.Kind);
        Assert.True(finding.Figures["probeDelayMs"] >= 500);
        Assert.True(runtime.StarvationAdjustments > 0, "the runtime saw no starvation, so this test proved nothing");
    }
}
