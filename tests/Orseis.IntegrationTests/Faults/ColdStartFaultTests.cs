using System.Diagnostics;
using MySqlConnector;
using Orseis.Diagnostics;

namespace Orseis.IntegrationTests.Faults;

/// <summary>
/// The first burst on a fresh pool, on the fault tests' private MariaDB, with new connections slowed by the server
/// (init_connect sleeping 0.3 s, as a TLS handshake or a distant server would): named a cold start with the cure; silent
/// when connects are fast and after a warm-up; and every caller reconnecting after a server restart is one
/// informational finding, never a pool-size alarm.
/// </summary>
[Collection(FaultCollection.Name)]
public sealed class ColdStartFaultTests(PrivateMariaDb server)
{
    private const int Burst = 60;

    private Database Open() =>
        new(MySqlConnectorFactory.Instance, $"{server.ConnectionString};Application Name=orseis-{Guid.NewGuid():N}",
            new OrseisOptions { Diagnostics = { Detectors = FindingKind.All } });

    [FaultFact]
    public async Task A_first_burst_on_slow_connects_is_a_cold_start_and_the_same_burst_after_a_warm_up_is_silent()
    {
        await server.SlowConnectsAsync(0.3);
        try
        {
            await using Database cold = Open();
            TimeSpan coldBurst = await BurstAsync(cold);
            PoolReport report = cold.GetPoolReport();
            PoolFinding finding = Assert.Single(report.Findings);
            Assert.Equal(FindingKind.SlowOpen, finding.Kind);
            Assert.StartsWith("Cold start of pool", finding.Message, StringComparison.Ordinal);
            Assert.Contains("WarmUpAsync(", finding.Message, StringComparison.Ordinal);
            Assert.InRange(finding.Figures["connectMs"], 290, 5000);
            Assert.InRange(finding.Figures["physicalConnects"], 20, Burst);

            await using Database warmed = Open();
            WarmUpResult warmUp = await warmed.WarmUpAsync(Burst);
            Assert.Equal(Burst, warmUp.Opened);
            Assert.Equal(Burst, warmUp.NewConnections);
            TimeSpan warmedBurst = await BurstAsync(warmed);
            Assert.Empty(warmed.GetPoolReport().Findings); // the warm-up's own slow wave is the cure, not a cold start
            Assert.True(warmedBurst < coldBurst, $"warmed {warmedBurst.TotalMilliseconds:0} ms, cold {coldBurst.TotalMilliseconds:0} ms");
        }
        finally
        {
            await server.SlowConnectsAsync(null);
        }
    }

    [FaultFact]
    public async Task A_first_burst_on_fast_connects_is_silent()
    {
        await using Database db = Open();
        await BurstAsync(db);
        Assert.Empty(db.GetPoolReport().Findings);
    }

    [FaultFact]
    public async Task Callers_reconnecting_at_once_after_a_server_restart_on_slow_connects_are_one_informational_finding()
    {
        await using Database db = Open();
        Assert.Equal(20, (await db.WarmUpAsync(20)).Opened);
        server.Restart(TimeSpan.FromSeconds(1));
        await server.SlowConnectsAsync(0.3);
        try
        {
            await Task.WhenAll(Enumerable.Range(0, 20).Select(_ => Task.Run(() => db.ExecuteAsync("do sleep(0.05)"))));
        }
        finally
        {
            await server.SlowConnectsAsync(null);
        }

        // MySqlConnector replaces the dead pooled connections itself as they are opened, so Orseis sees no failure, only
        // new connections that are slow: a cold pool. A provider that fails the open (a connect refused, a connection
        // found broken) makes it a reconnect wave, which names the restart.
        PoolReport report = db.GetPoolReport();
        PoolFinding finding = Assert.Single(report.Findings, f => f.Kind == FindingKind.SlowOpen);
        Assert.True(finding.Message.StartsWith("Reconnect wave on pool", StringComparison.Ordinal) ||
                    finding.Message.StartsWith("Cold pool", StringComparison.Ordinal), finding.Message);
        Assert.InRange(finding.Figures["connectMs"], 290, 5000);
        Assert.DoesNotContain(report.Findings, f => f.Kind is FindingKind.PoolSize or FindingKind.Saturation);
    }

    /// <summary>Burst callers released together, each running a 0.2 s statement; returns how long the burst took.</summary>
    private static async Task<TimeSpan> BurstAsync(Database db)
    {
        var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task[] callers = [.. Enumerable.Range(0, Burst).Select(_ => Task.Run(async () =>
        {
            await go.Task;
            await db.ExecuteAsync("do sleep(0.2)");
        }))];
        await Task.Delay(100);
        var clock = Stopwatch.StartNew();
        go.SetResult();
        await Task.WhenAll(callers);
        return clock.Elapsed;
    }

}
