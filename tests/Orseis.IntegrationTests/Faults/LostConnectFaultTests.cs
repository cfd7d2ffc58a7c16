using MySqlConnector;
using Orseis.Diagnostics;
using Orseis.Testing;

namespace Orseis.IntegrationTests.Faults;

/// <summary>A MariaDB that queues one connect at a time (back_log 1), for bursts that overflow its listen queue.</summary>
public sealed class NarrowQueueMariaDb : IDisposable
{
    private readonly ThrowawayMariaDb _server = new("backlog", "--back-log=1 --max-connections=600");

    public string ConnectionString => _server.ConnectionString;

    public void Dispose() => _server.Dispose();
}

/// <summary>
/// A burst of connects at once at a server whose listen queue holds one: the connects the queue dropped time out while the
/// server completes the others. What the caller is told (the <see cref="PoolExhaustedException"/>) and the finding both
/// say the connect was lost on the way, with the burst's cure, never that the server does not answer; and no outage is
/// named.
/// </summary>
[Collection(FaultCollection.Name)]
public sealed class LostConnectFaultTests(NarrowQueueMariaDb server) : IClassFixture<NarrowQueueMariaDb>
{
    private const int Burst = 200;

    [FaultFact]
    public async Task A_connect_lost_at_a_full_listen_queue_is_told_as_lost_not_as_a_server_that_does_not_answer()
    {
        for (int attempt = 1; attempt <= 3; attempt++)
        {
            await using var db = new Database(MySqlConnectorFactory.Instance,
                $"{server.ConnectionString};Connect Timeout=1;Maximum Pool Size=300;Application Name=orseis-{Guid.NewGuid():N}",
                new OrseisOptions { Diagnostics = { Detectors = FindingKind.All } });
            var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            Task<int>[] calls = [.. Enumerable.Range(0, Burst).Select(_ => Task.Run(async () =>
            {
                await go.Task;
                return await db.ScalarAsync<int>("select 1");
            }))];
            go.SetResult();
            try
            {
                await Task.WhenAll(calls);
            }
            catch (Exception)
            {
                // read below, call by call
            }

            PoolExhaustedException[] timedOut = [.. calls.Where(c => c.IsFaulted).Select(c => c.Exception!.InnerException).OfType<PoolExhaustedException>()];
            Assert.All(calls.Where(c => c.IsFaulted), c => Assert.IsType<PoolExhaustedException>(c.Exception!.InnerException));
            if (timedOut.Length == 0 || timedOut.Length == Burst)
                continue; // the queue kept up this time (or nothing connected): no connect was lost while others completed

            Assert.All(timedOut, e =>
            {
                Assert.DoesNotContain("not answering new connections", e.Message, StringComparison.Ordinal);
                Assert.Contains("The server is up: it completed", e.Message, StringComparison.Ordinal);
                Assert.Contains("db.WarmUpAsync", e.Message, StringComparison.Ordinal);
                Assert.Contains("back_log", e.Message, StringComparison.Ordinal);
            });
            PoolReport report = db.GetPoolReport();
            Assert.DoesNotContain(report.Findings, f => f.Kind == FindingKind.ServerUnavailable);
            PoolFinding lost = Assert.Single(report.Findings, f => f.Kind == FindingKind.PoolTimeout);
            Assert.StartsWith("Pool '", lost.Message, StringComparison.Ordinal);
            Assert.Contains("lost a new connection", lost.Message, StringComparison.Ordinal);
            Assert.Equal(1, lost.Figures["lostConnect"]);
            return;
        }

        Assert.Fail($"3 bursts of {Burst} connects at once at a server queueing 1 lost none while it completed others: the fault was not produced");
    }
}
