using System.Globalization;
using System.Text.RegularExpressions;
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
        // Holds of 250 ms: each release reaches the next caller only after a pooled open's reset round trip and a thread
        // to run it, 10 to 40 ms while other test classes start beside this one (or a CPU hog runs). Against 100 ms holds
        // that read as connections held a third longer than they need, in 2 runs of 10 with a hog (docs/diagnostics.md).
        await using Database db = Open("Max Pool Size=5");
        var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task[] callers = [.. Enumerable.Range(0, 20).Select(_ => Task.Run(async () =>
        {
            await go.Task;
            await db.ExecuteAsync("do sleep(0.25)");
        }))];
        go.SetResult();
        await Task.WhenAll(callers);

        PoolReport report = db.GetPoolReport();
        Assert.True(report.Findings.Any(f => f.Kind == FindingKind.Saturation && f.Figures["queued"] > 0), report.ToString());
        PoolFinding[] sizes = [.. report.Findings.Where(f => f.Kind == FindingKind.PoolSize)];
        Assert.True(sizes.Length == 1, report.ToString());
        PoolFinding size = sizes[0];
        Assert.Equal(report.RecommendedMaxPoolSize, (int)size.Figures["recommended"]);
        Assert.True(report.RecommendedMaxPoolSize > 5);
        Assert.DoesNotContain(report.Findings, f => f.Kind is FindingKind.SlowOpen or FindingKind.Churn or FindingKind.ThreadPoolStarvation);
        Assert.True(report.PeakDemand <= 20, report.ToString()); // never more than the callers there were
    }

    /// <summary>
    /// Requests of a lookup and half a second of work, sixteen at once: on a pool of 4 the pool is what holds them up, on
    /// a pool of 20 nothing is wrong. Half the holds are lookups of well under a millisecond: priced at the 25th
    /// percentile of all holds, the work read as "held longer than they need" and the small pool got no raise.
    /// </summary>
    [MySqlFact]
    public async Task Requests_mixing_a_lookup_with_long_work_are_priced_at_both_and_a_small_pool_is_told_to_grow()
    {
        PoolReport small = await Requests("Max Pool Size=4");
        Assert.True(small.Findings.Any(f => f.Kind == FindingKind.Saturation), small.ToString());
        PoolFinding size = Assert.Single(small.Findings, f => f.Kind == FindingKind.PoolSize);
        Assert.True(size.Figures["recommended"] > 4, small.ToString());
        // The finding may come as soon as the queue's holds under way show the pool busy, before the long holds are
        // released; the report's advice, made when all of them were, prices a lookup's and a piece of work's, averaged.
        Assert.True(small.RecommendedMaxPoolSize > 4, small.ToString());
        Match held = Regex.Match(small.PoolSizeAdvice ?? "", @"x ([0-9.]+) ms held");
        Assert.True(held.Success && double.Parse(held.Groups[1].Value, CultureInfo.InvariantCulture) > 100, small.ToString());

        PoolReport large = await Requests("Max Pool Size=20");
        Assert.False(large.Findings.Any(f => f.Kind is FindingKind.Saturation or FindingKind.PoolSize), large.ToString());
    }

    private static async Task<PoolReport> Requests(string settings)
    {
        await using Database db = Open(settings);
        var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task[] requests = [.. Enumerable.Range(0, 16).Select(i => Task.Run(async () =>
        {
            await go.Task;
            Assert.Equal(i, await db.QuerySingleAsync<int>("select @i", new { i }));
            await db.ExecuteAsync("do sleep(0.5)");
        }))];
        go.SetResult();
        await Task.WhenAll(requests);
        return db.GetPoolReport();
    }
}
