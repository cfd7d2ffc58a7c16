using MySqlConnector;
using Orseis.Diagnostics;
using Orseis.Testing;

namespace Orseis.IntegrationTests.Faults;

/// <summary>
/// The most common starvation there is: a console worker or service running blocking database calls on pool threads
/// (<c>Task.Run(() => db.Query(...))</c>), where the runtime adds no thread because completions keep arriving. Orseis's
/// own count of calls blocking pool threads names it; a short burst of the same calls, and an async load, stay silent.
/// </summary>
[Collection(FaultCollection.Name)]
public sealed class BlockingStarvationFaultTests(PrivateMariaDb server)
{
    private Database Open(int maxPool = 100, TimeSpan? findingInterval = null)
    {
        var options = new OrseisOptions { Diagnostics = { Detectors = FindingKind.All } };
        if (findingInterval is { } interval)
            options.Diagnostics.FindingInterval = interval;
        return new(MySqlConnectorFactory.Instance,
            $"{server.ConnectionString};Application Name=orseis-{Guid.NewGuid():N};Maximum Pool Size={maxPool}", options);
    }

    [FaultFact]
    public Task Fifty_blocking_calls_on_pool_threads_are_starvation_with_their_call_site() => BlockingCallsStarve(cpuBurstFirst: false);

    /// <summary>
    /// A worker that computed before it queried: the CPU-bound burst grows the thread pool and hill climbing then lowers
    /// the number it lets run work below the threads that exist (seen: 13 threads, 7 running). The blocked calls hold most
    /// of the running threads, not most of the existing ones, and that is still starvation.
    /// </summary>
    [FaultFact]
    public Task Blocking_calls_after_a_cpu_bound_burst_are_starvation() => BlockingCallsStarve(cpuBurstFirst: true);

    private async Task BlockingCallsStarve(bool cpuBurstFirst)
    {
        // Opened first, as an app opens its database at start: its detector hears the runtime's adjustments from then on.
        using var runtime = new RuntimeThreadPoolEvents();
        // The burst may starve the pool on its own (the runtime adds threads for it on a busy machine, as in one CI run):
        // that episode is reported too, so findings are not rate-limited here, lest it hide the calls' one.
        await using Database db = Open(maxPool: 140, findingInterval: cpuBurstFirst ? TimeSpan.Zero : null);
        if (cpuBurstFirst)
        {
            await CpuBurst.RunAsync(TimeSpan.FromSeconds(4));
            await Task.Delay(1500); // hill climbing lowers the goal as the burst ends
        }

        // Fifty blocking calls, and three per thread the pool already has: in a test process, earlier tests may have grown
        // the thread pool well past a fresh worker's 2, and fifty calls on as many threads starve nothing (each waits less
        // than the probe's threshold). The pool of connections is sized for them, so no caller waits for a connection
        // (within the server's 151 connections).
        int threads = ThreadPool.ThreadCount;
        int calls = Math.Min(Math.Max(50, threads * 3 + 20), 140);
        var clock = System.Diagnostics.Stopwatch.StartNew();
        await Task.WhenAll(Enumerable.Range(0, calls).Select(_ => Task.Run(() => db.Query<long>("select sleep(0.5)"))));
        TimeSpan took = clock.Elapsed;

        // An episode no Orseis call named while it lasted (every call had already started) is reported by the probe's next
        // tick once its probe ran, 100 ms to a second later (a quiet tick): a moment after the last call returned.
        static bool OfTheCalls(PoolFinding f) => f.Kind == FindingKind.ThreadPoolStarvation && f.Figures["blockedInOrseis"] >= 1;
        PoolReport report = db.GetPoolReport();
        for (int i = 0; i < 30 && !report.Findings.Any(OfTheCalls); i++)
        {
            await Task.Delay(100);
            report = db.GetPoolReport();
        }

        PoolFinding? finding = report.Findings.LastOrDefault(OfTheCalls);
        Assert.True(finding is not null,
            $"no starvation finding: {calls} calls on {threads} pool threads at the start took {took.TotalSeconds:0.0} s, " +
            $"{ThreadPool.ThreadCount} threads at the end, runtime goal {runtime.Goal}, injections {runtime.StarvationAdjustments}; {report}");
        Assert.True(finding.Figures["probeDelayMs"] >= 500, finding.FormatFigures());
        Assert.True(finding.Figures["blockedInOrseis"] >= 1, finding.FormatFigures());
        Assert.Contains("blocked inside synchronous Orseis calls", finding.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(report.Findings, f => f.Kind is FindingKind.SlowOpen or FindingKind.PoolSize);
        Assert.True(cpuBurstFirst || report.Findings.Count(f => f.Kind == FindingKind.ThreadPoolStarvation) == 1, report.ToString());
    }

    [FaultFact]
    public async Task A_short_burst_of_blocking_calls_and_an_async_load_are_silent()
    {
        await using Database db = Open();
        await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Run(() => db.Query<long>("select sleep(0.05)"))));
        await Task.WhenAll(Enumerable.Range(0, 50).Select(_ => db.QueryAsync<long>("select sleep(0.5)")));
        Assert.Empty(db.GetPoolReport().Findings);
    }
}
