using MySqlConnector;
using Orseis.Diagnostics;

namespace Orseis.IntegrationTests.Faults;

/// <summary>
/// The fault tests' own MariaDB stopped for 2 s under 10 callers through MySqlConnector, which fails opens at once while
/// it is down: one ServerUnavailable finding with the provider's error, none before the outage, and the callers succeed
/// again once it is back.
/// </summary>
[Collection(FaultCollection.Name)]
public sealed class OutageFaultTests(PrivateMariaDb server)
{
    [FaultFact]
    public async Task An_outage_is_one_finding_with_the_providers_error()
    {
        await using var db = new Database(MySqlConnectorFactory.Instance,
            $"{server.ConnectionString};Application Name=orseis-{Guid.NewGuid():N};Connect Timeout=2",
            new OrseisOptions { Diagnostics = { Detectors = FindingKind.All } });
        Assert.Equal(1, await db.ScalarAsync<int>("select 1"));
        Assert.Empty(db.GetPoolReport().Findings);

        using var stop = new CancellationTokenSource();
        int failed = 0, succeededAfter = 0;
        bool restarted = false;
        Task[] callers = [.. Enumerable.Range(0, 10).Select(_ => Task.Run(async () =>
        {
            while (!stop.IsCancellationRequested)
            {
                try
                {
                    await db.ScalarAsync<int>("select 1");
                    if (Volatile.Read(ref restarted))
                        Interlocked.Increment(ref succeededAfter);
                }
                catch (Exception)
                {
                    Interlocked.Increment(ref failed);
                }

                await Task.Delay(20);
            }
        }))];
        await Task.Factory.StartNew(() => server.Restart(TimeSpan.FromSeconds(2)), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        Volatile.Write(ref restarted, true);
        await Task.Delay(TimeSpan.FromSeconds(2));
        await stop.CancelAsync();
        await Task.WhenAll(callers);

        Assert.True(failed > 0, "the outage went unnoticed, so this test proved nothing");
        Assert.True(succeededAfter > 0, "no call succeeded after the server came back");
        PoolFinding finding = Assert.Single(db.GetPoolReport().Findings, f => f.Kind == FindingKind.ServerUnavailable);
        Assert.Contains("cannot connect", finding.Message, StringComparison.Ordinal);
        Assert.Contains("MySqlConnector.MySqlException", finding.Message, StringComparison.Ordinal);
    }
}
