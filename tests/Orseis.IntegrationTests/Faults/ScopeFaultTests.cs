using System.Data.Common;
using Orseis.Diagnostics;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Faults;

/// <summary>
/// <see cref="ConnectionScope"/>s under a real outage: the server stopped and started again while scopes hold parked
/// connections and while callers keep calling in scopes. Nothing wrong comes back, every error is a clear one, the scopes
/// recover, and every connection is given back.
/// </summary>
[Collection(FaultCollection.Name)]
public sealed class ScopeFaultTests(PrivateMariaDb server, Xunit.Abstractions.ITestOutputHelper output)
{
    public static TheoryData<MySqlProvider> Providers => [MySqlProvider.MySqlConnector, MySqlProvider.MySqlData];

    private Database Open(MySqlProvider provider)
    {
        string cs = $"{server.ConnectionString};Connect Timeout=3;Maximum Pool Size=20";
        if (provider == MySqlProvider.MySqlData)
            cs = Orseis.Testing.MySqlDataOnMariaDb.ConnectionString(cs, connectionReset: true);
        return new Database(new MySqlDialect(provider).Factory, cs, new OrseisOptions
        {
            CommandTimeout = TimeSpan.FromSeconds(5),
            ScopeIdleWindow = TimeSpan.FromSeconds(10),
            Diagnostics = { Detectors = FindingKind.All },
        });
    }

    [FaultFact]
    public Task A_restart_while_connections_are_parked_through_MySqlConnector() => RestartWhileParked(MySqlProvider.MySqlConnector);

    [FaultFact]
    public Task A_restart_while_connections_are_parked_through_MySqlData() => RestartWhileParked(MySqlProvider.MySqlData);

    /// <summary>
    /// Eight scopes each park a connection, the server goes down for a second and comes back, and each scope calls again
    /// (a parked connection is dead now) until its calls work, at most 20 times; each value read back is the one sent.
    /// </summary>
    private async Task RestartWhileParked(MySqlProvider provider)
    {
        await using Database db = Open(provider);
        int parked = 0;
        var allParked = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var restarted = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var errors = new System.Collections.Concurrent.ConcurrentBag<Exception>();

        async Task<int> ScopeAsync(int id)
        {
            await using ConnectionScope scope = db.BeginScope();
            Assert.Equal(id, await db.ScalarAsync<int>("select @id", new { id }));
            if (Interlocked.Increment(ref parked) == 8)
                allParked.SetResult();
            await restarted.Task; // no thread blocked while the server restarts
            for (int attempt = 1; attempt <= 20; attempt++)
            {
                try
                {
                    Assert.Equal(id * 10, await db.ScalarAsync<int>("select @v", new { v = id * 10 }));
                    Assert.Equal(id * 10 + 1, await db.ScalarAsync<int>("select @v", new { v = id * 10 + 1 }));
                    return attempt;
                }
                catch (Exception error) when (error is ConnectionBrokenException or DbException)
                {
                    errors.Add(error);
                    await Task.Delay(200);
                }
            }

            throw new TimeoutException($"scope {id} never recovered");
        }

        Task<int>[] scopes = [.. Enumerable.Range(1, 8).Select(id => Task.Run(() => ScopeAsync(id)))];
        await allParked.Task.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.Equal(8, db.GetPoolReport().ParkedConnections);
        await Task.Factory.StartNew(() => server.Restart(TimeSpan.FromSeconds(1)), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        restarted.SetResult();
        int[] attempts = await Task.WhenAll(scopes);

        output.WriteLine($"{provider}: attempts {string.Join(",", attempts)}; errors {errors.Count}: " +
                         string.Join(" | ", errors.Select(e => e.GetType().Name + ": " + e.Message)));
        Assert.All(attempts, a => Assert.InRange(a, 1, 20));
        // A dead parked connection is reported as a broken connection (never a provider's raw error), at most once a scope.
        Assert.All(errors, e => Assert.IsType<ConnectionBrokenException>(e));
        Assert.InRange(errors.Count, 0, 8);
        PoolReport report = db.GetPoolReport();
        Assert.Equal(0, report.InUse);
        Assert.Equal(0, report.ParkedConnections);
    }
}
