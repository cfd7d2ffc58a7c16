using Orseis.Diagnostics;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Diagnostics;

/// <summary>
/// Detectors against the shared MariaDB: churn in any call form versus a paced worker, and a saturating burst. Every
/// detector but thread-pool starvation: the thread pool is the test process's, shared with every test running in
/// parallel, some of them blocking it (starvation is tested alone, in <c>DetectorFaultTests</c>).
/// </summary>
public sealed class MariaDbDetectorTests
{
    private static Database Open(string settings = "") =>
        new(MySqlConnector.MySqlConnectorFactory.Instance, new MySqlDialect().ConnectionString + $";Application Name=orseis-{Guid.NewGuid():N};{settings}",
            new OrseisOptions { Diagnostics = { Detectors = FindingKind.All & ~FindingKind.ThreadPoolStarvation } });

    [MySqlFact]
    public async Task A_loop_of_QuerySingleAsync_is_churn_and_a_worker_taking_a_message_every_100_ms_is_not()
    {
        await using Database loop = Open();
        for (int i = 0; i < 20; i++)
            Assert.Equal(i, await loop.QuerySingleAsync<int>("select @i", new { i }));
        PoolFinding churn = Assert.Single(loop.GetPoolReport().Findings);
        Assert.Equal(FindingKind.Churn, churn.Kind);
        Assert.Contains(nameof(A_loop_of_QuerySingleAsync_is_churn_and_a_worker_taking_a_message_every_100_ms_is_not), churn.Location, StringComparison.Ordinal);
        Assert.InRange(churn.Figures["meanOpenMs"], 0.001, 50); // a warm open, never a cold connect

        await using Database worker = Open();
        using var timer = new PeriodicTimer(TimeSpan.FromMilliseconds(100));
        for (int i = 0; i < 15 && await timer.WaitForNextTickAsync(); i++)
            Assert.Equal(i, await worker.QueryFirstAsync<int>("select @i", new { i }));
        Assert.Empty(worker.GetPoolReport().Findings);
    }

    [MySqlFact]
    public async Task Callers_arriving_at_once_at_a_full_pool_are_saturation_and_the_advice_is_one_number()
    {
        await using Database db = Open("Max Pool Size=5");
        var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task[] callers = [.. Enumerable.Range(0, 20).Select(_ => Task.Run(async () =>
        {
            await go.Task;
            await db.ExecuteAsync("do sleep(0.1)");
        }))];
        go.SetResult();
        await Task.WhenAll(callers);

        PoolReport report = db.GetPoolReport();
        Assert.Contains(report.Findings, f => f.Kind == FindingKind.Saturation && f.Figures["queued"] > 0);
        PoolFinding size = Assert.Single(report.Findings, f => f.Kind == FindingKind.PoolSize);
        Assert.Equal(report.RecommendedMaxPoolSize, (int)size.Figures["recommended"]);
        Assert.True(report.RecommendedMaxPoolSize > 5);
        Assert.DoesNotContain(report.Findings, f => f.Kind is FindingKind.SlowOpen or FindingKind.Churn or FindingKind.ThreadPoolStarvation);
        Assert.True(report.PeakDemand <= 20, report.ToString()); // never more than the callers there were
    }
}
