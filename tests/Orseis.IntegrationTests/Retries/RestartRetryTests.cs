using System.Collections.Concurrent;
using System.Data.Common;
using System.Diagnostics;
using Orseis.IntegrationTests.Faults;
using Xunit.Abstractions;

namespace Orseis.IntegrationTests.Retries;

/// <summary>
/// A private server stopped for 2 s and started again while four callers read in a loop, on a database with retries on
/// and a 5 s budget: every read succeeds and gives the right answer, and the retries are counted; the p99 of the reads
/// that overlapped the restart is printed. The same restart with retries off fails reads, as before.
/// </summary>
public abstract class RestartRetrySuite(ITestOutputHelper output)
{
    protected abstract DbProviderFactory Factory { get; }

    /// <summary>The private server's connection string, with a short connect timeout.</summary>
    protected abstract string ConnectionString { get; }

    /// <summary>Stops the private server, keeps it down for <paramref name="down"/>, starts it again.</summary>
    protected abstract void Restart(TimeSpan down);

    protected async Task Reads_through_a_restart_all_succeed()
    {
        Restarted run = await ReadThroughRestart(retries: true);

        output.WriteLine(
            $"retries on: {run.Reads} reads, {run.Failed} failed, {run.Retried} retried; {run.InWindow} reads overlapped the restart, " +
            $"their p99 {run.P99InWindow.TotalMilliseconds:0} ms, slowest {run.Slowest.TotalMilliseconds:0} ms");
        Assert.Equal(0, run.Failed);
        Assert.True(run.Reads > 40, $"only {run.Reads} reads ran");
        Assert.True(run.Retried > 0, "the restart was never retried through");
        Assert.True(run.InWindow > 0, "no read overlapped the restart");
    }

    protected async Task Without_retries_reads_in_a_restart_fail()
    {
        Restarted run = await ReadThroughRestart(retries: false);

        output.WriteLine($"retries off: {run.Reads} reads, {run.Failed} failed");
        Assert.True(run.Failed > 0, "no read failed while the server was down");
        Assert.Equal(0, run.Retried);
    }

    private sealed record Restarted(int Failed, int Reads, long Retried, int InWindow, TimeSpan P99InWindow, TimeSpan Slowest);

    private async Task<Restarted> ReadThroughRestart(bool retries)
    {
        string pool = $"orseis_restart_{Guid.NewGuid():N}"[..24];
        using var probe = new RetryProbe(pool);
        var options = new OrseisOptions { PoolName = pool, CommandTimeout = TimeSpan.FromSeconds(5) };
        options.Retry.Enabled = retries;
        options.Retry.Budget = TimeSpan.FromSeconds(5);
        await using var db = new Database(Factory, ConnectionString, options);
        Assert.Equal(1, await db.ScalarAsync<int>("select 1"));

        var errors = new ConcurrentQueue<Exception>();
        var reads = new ConcurrentQueue<(long Started, long Ended)>();
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

                reads.Enqueue((started, Stopwatch.GetTimestamp()));
                await Task.Delay(20);
            }
        })).ToArray();

        await Task.Delay(500);
        long down = Stopwatch.GetTimestamp();
        await Task.Run(() => Restart(TimeSpan.FromSeconds(2)));
        long up = Stopwatch.GetTimestamp();
        output.WriteLine($"the restart (stop, 2 s down, start) took {Stopwatch.GetElapsedTime(down, up).TotalMilliseconds:0} ms");
        await Task.Delay(1500);
        stop.Cancel();
        await Task.WhenAll(callers);

        // Each failure with its whole chain (a socket error's code included): a read that failed inside its budget says which
        // error the retry did not take for a failed connect.
        foreach (Exception error in errors.Take(3))
        {
            for (Exception? e = error; e is not null; e = e.InnerException)
                output.WriteLine($"{(e == error ? "" : "  inner ")}{e.GetType().Name}{(e is System.Net.Sockets.SocketException socket ? $" ({socket.SocketErrorCode})" : "")}: {e.Message}");
        }
        TimeSpan[] window = [.. reads.Where(r => r.Started <= up && r.Ended >= down).Select(r => Stopwatch.GetElapsedTime(r.Started, r.Ended)).Order()];
        TimeSpan p99 = window.Length == 0 ? TimeSpan.Zero : window[(int)Math.Ceiling(window.Length * 0.99) - 1];
        TimeSpan slowest = reads.Max(r => Stopwatch.GetElapsedTime(r.Started, r.Ended));
        return new Restarted(errors.Count, reads.Count, probe.Total, window.Length, p99, slowest);
    }
}

[Collection(FaultCollection.Name)]
public sealed class RestartRetryTests(PrivateMariaDb server, ITestOutputHelper output) : RestartRetrySuite(output)
{
    protected override DbProviderFactory Factory => MySqlConnector.MySqlConnectorFactory.Instance;

    protected override string ConnectionString => server.ConnectionString + ";Connect Timeout=3";

    protected override void Restart(TimeSpan down) => server.Restart(down);

    [FaultFact]
    public Task Reads_through_a_2_s_restart_all_succeed_with_a_5_s_budget() => Reads_through_a_restart_all_succeed();

    [FaultFact]
    public Task Without_retries_reads_in_a_restart_fail_as_before() => Without_retries_reads_in_a_restart_fail();
}

[Collection(FaultCollection.Name)]
public sealed class PostgresRestartRetryTests(PrivatePostgres server, ITestOutputHelper output)
    : RestartRetrySuite(output), IClassFixture<PrivatePostgres>
{
    protected override DbProviderFactory Factory => Npgsql.NpgsqlFactory.Instance;

    protected override string ConnectionString => server.ConnectionString + ";Timeout=3";

    protected override void Restart(TimeSpan down) => server.Restart(down);

    [Faults.ServerFaultFact("postgres")]
    public Task Reads_through_a_2_s_restart_all_succeed_with_a_5_s_budget() => Reads_through_a_restart_all_succeed();

    [Faults.ServerFaultFact("postgres")]
    public Task Without_retries_reads_in_a_restart_fail_as_before() => Without_retries_reads_in_a_restart_fail();
}
