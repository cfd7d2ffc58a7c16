using System.Net;
using System.Net.Sockets;
using Orseis.Trace;
using Orseis.Trace.Monitor;

namespace Orseis.EndToEndTests;

/// <summary>
/// <c>monitor</c>'s retries column over EventPipe: the trace tool's own session on this process, fed to the monitor's
/// state as <c>monitor</c> feeds it, while a pool's opens are refused and retried.
/// </summary>
public sealed class MonitorRetriesTests
{
    [Fact]
    public async Task A_pool_whose_opens_are_refused_and_retried_shows_its_retries_per_second()
    {
        string pool = "monitor_retries_" + Guid.NewGuid().ToString("N")[..8];
        var interval = TimeSpan.FromSeconds(1);
        var state = new MonitorState(interval);
        using var session = new OrseisTraceSession(Environment.ProcessId, interval);
        session.Metric += state.Add;

        var options = new OrseisOptions { PoolName = pool };
        options.Retry.Enabled = true;
        options.Retry.Budget = TimeSpan.FromMilliseconds(300);
        options.Retry.BaseDelay = TimeSpan.FromMilliseconds(10);
        options.Retry.MaxDelay = TimeSpan.FromMilliseconds(50);
        await using var db = new Database(
            MySqlConnector.MySqlConnectorFactory.Instance, $"Server=127.0.0.1;Port={RefusedPort()};User ID=u;Connect Timeout=1", options);

        DateTime deadline = DateTime.UtcNow.AddSeconds(30);
        var seen = new List<string>();
        PoolSnapshot? retried = null;
        while (retried is null)
        {
            Assert.True(DateTime.UtcNow < deadline, "no interval showed the pool's retries: " + string.Join(" | ", seen));
            long next = Environment.TickCount64 + (long)interval.TotalMilliseconds;
            while (Environment.TickCount64 < next)
            {
                // Every open is refused: each call is retried until its budget runs out, then throws.
                await Assert.ThrowsAnyAsync<Exception>(() => db.ScalarAsync<int>("select 1"));
            }

            MonitorSnapshot snapshot = state.Take();
            if (snapshot.Pools.FirstOrDefault(p => p.Pool == pool) is { } p)
            {
                seen.Add(PlainView.Line(snapshot, p));
                if (p.RetriesPerSecond > 0)
                    retried = p;
            }
        }

        // Tens of retries a second (each call retried for 300 ms, 10-50 ms apart), never more than attempts could be.
        Assert.InRange(retried.RetriesPerSecond, 1, 1000);
        Assert.Matches(@"timeouts/s [0-9.]+, retries/s [1-9][0-9.]*;", seen[^1]);
    }

    /// <summary>A loopback port nothing listens on: a connect to it is refused at once.</summary>
    private static int RefusedPort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
