using System.Collections.Concurrent;
using System.Diagnostics;
using Orseis.IntegrationTests.Faults;
using Xunit.Abstractions;

namespace Orseis.IntegrationTests.Retries;

/// <summary>
/// The fault tests' private MariaDB stopped for 2 s and started again while four callers read in a loop, on a database
/// with retries on and a 5 s budget: every read succeeds and gives the right answer, and the retries are counted. The
/// same restart with retries off fails reads, as before.
/// </summary>
[Collection(FaultCollection.Name)]
public sealed class RestartRetryTests(PrivateMariaDb server, ITestOutputHelper output)
{
    [FaultFact]
    public async Task Reads_through_a_2_s_restart_all_succeed_with_a_5_s_budget()
    {
        (int failed, int reads, long retried, TimeSpan slowest) = await ReadThroughRestart(retries: true);

        output.WriteLine($"retries on: {reads} reads, {failed} failed, {retried} retried, slowest read {slowest.TotalMilliseconds:0} ms");
        Assert.Equal(0, failed);
        Assert.True(reads > 40, $"only {reads} reads ran");
        Assert.True(retried > 0, "the restart was never retried through");
    }

    [FaultFact]
    public async Task Without_retries_reads_in_a_restart_fail_as_before()
    {
        (int failed, int reads, long retried, _) = await ReadThroughRestart(retries: false);

        output.WriteLine($"retries off: {reads} reads, {failed} failed");
        Assert.True(failed > 0, "no read failed while the server was down");
        Assert.Equal(0, retried);
    }

    private async Task<(int Failed, int Reads, long Retried, TimeSpan Slowest)> ReadThroughRestart(bool retries)
    {
        string pool = $"orseis_restart_{Guid.NewGuid():N}"[..24];
        using var probe = new RetryProbe(pool);
        var options = new OrseisOptions { PoolName = pool, CommandTimeout = TimeSpan.FromSeconds(5) };
        options.Retry.Enabled = retries;
        options.Retry.Budget = TimeSpan.FromSeconds(5);
        await using var db = new Database(MySqlConnector.MySqlConnectorFactory.Instance, server.ConnectionString + ";Connect Timeout=3", options);
        Assert.Equal(1, await db.ScalarAsync<int>("select 1"));

        var errors = new ConcurrentQueue<Exception>();
        int reads = 0;
        long slowestTicks = 0;
        using var stop = new CancellationTokenSource();
        Task[] callers = Enumerable.Range(1, 4).Select(n => Task.Run(async () =>
        {
            while (!stop.IsCancellationRequested)
            {
                long started = Stopwatch.GetTimestamp();
                try
                {
                    int answer = await db.ScalarAsync<int>("select @n + 0", new { n });
                    Assert.Equal(n, answer);
                }
                catch (Exception error)
                {
                    errors.Enqueue(error);
                }

                Interlocked.Increment(ref reads);
                long took = Stopwatch.GetTimestamp() - started;
                long seen;
                while (took > (seen = Interlocked.Read(ref slowestTicks)) && Interlocked.CompareExchange(ref slowestTicks, took, seen) != seen)
                {
                }

                await Task.Delay(20);
            }
        })).ToArray();

        await Task.Delay(500);
        long restarting = Stopwatch.GetTimestamp();
        await Task.Run(() => server.Restart(TimeSpan.FromSeconds(2)));
        output.WriteLine($"the restart (stop, 2 s down, start) took {Stopwatch.GetElapsedTime(restarting).TotalMilliseconds:0} ms");
        await Task.Delay(1500);
        stop.Cancel();
        await Task.WhenAll(callers);

        foreach (Exception error in errors.Take(3))
            output.WriteLine($"{error.GetType().Name}: {error.Message}");
        return (errors.Count, reads, probe.Total, Stopwatch.GetElapsedTime(0, slowestTicks));
    }
}
