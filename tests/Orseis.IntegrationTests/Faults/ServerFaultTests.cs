using System.Data.Common;
using System.Diagnostics;
using Orseis.IntegrationTests.Infrastructure;
using Xunit.Abstractions;

namespace Orseis.IntegrationTests.Faults;

/// <summary>
/// Real faults on a MariaDB of the tests' own: the server stopped and restarted under load, a server that stops
/// answering (packets dropped), and a load far above the pool's size. Each is bounded in calls and time and stops by
/// itself; each asserts what a user would check: no wrong result, nobody waiting past their timeout, clear errors,
/// recovery, and every connection given back.
/// </summary>
[Collection(FaultCollection.Name)]
public sealed class ServerFaultTests(PrivateMariaDb server, ITestOutputHelper output)
{
    public static TheoryData<MySqlProvider> Providers => [MySqlProvider.MySqlConnector, MySqlProvider.MySqlData];

    private DbProviderFactory Factory(MySqlProvider provider) => new MySqlDialect(provider).Factory;

    private string ConnectionString(MySqlProvider provider, string settings) => provider == MySqlProvider.MySqlConnector
        ? $"{server.ConnectionString};{settings}"
        : Orseis.Testing.MySqlDataOnMariaDb.ConnectionString($"{server.ConnectionString};{settings}", connectionReset: true);

    [FaultFact]
    public Task A_restart_under_load_through_MySqlConnector_gives_clear_errors_and_recovers() => RestartUnderLoad(MySqlProvider.MySqlConnector);

    [FaultFact]
    public Task A_restart_under_load_through_MySqlData_gives_clear_errors_and_recovers() => RestartUnderLoad(MySqlProvider.MySqlData);

    /// <summary>
    /// About 50 callers for about 10 s (open-per-call, ReuseConnection and sessions) while the server is stopped for 2 s
    /// and started again.
    /// </summary>
    private async Task RestartUnderLoad(MySqlProvider provider)
    {
        int baseline = ServerConnections(provider);
        string cs = ConnectionString(provider, "Connect Timeout=3;Maximum Pool Size=60");
        var options = new OrseisOptions { CommandTimeout = TimeSpan.FromSeconds(5) };
        var perCall = new Database(Factory(provider), cs, options);
        var reuse = new Database(Factory(provider), cs, new OrseisOptions { Mode = ExecutionMode.ReuseConnection, CommandTimeout = options.CommandTimeout });
        var load = new LoadResult();
        long stopAtTicks = TimeSpan.FromSeconds(10).Ticks; // moved later if the restart ends late, so recovery is always seen
        TimeSpan limit = TimeSpan.FromSeconds(5 + 3 + 2); // command timeout + connect timeout + slack

        async Task Caller(int id)
        {
            Session? session = null;
            for (int i = 0; load.Clock.Elapsed.Ticks < Interlocked.Read(ref stopAtTicks); i++)
            {
                int v = id * 100_000 + i;
                if (id % 10 == 9)
                {
                    // A session caller: opens one, uses it, and replaces it when it failed.
                    await load.RunAsync(v, async () =>
                    {
                        session ??= await perCall.OpenSessionAsync();
                        try
                        {
                            return await session.ScalarAsync<int>("select @v", new { v });
                        }
                        catch
                        {
                            await session.DisposeAsync();
                            session = null;
                            throw;
                        }
                    });
                }
                else
                {
                    SqlRunner runner = id % 10 == 8 ? reuse : perCall;
                    await load.RunAsync(v, () => runner.ScalarAsync<int>("select @v", new { v }));
                }

                await Task.Delay(5);
            }

            if (session is not null)
                await session.DisposeAsync();
        }

        // MySql.Data's async calls run synchronously: its callers get threads of their own, as they would in an
        // application, so the thread pool does not starve and delay everything else (the restart included).
        Task[] callers = Enumerable.Range(0, 50)
            .Select(id => provider == MySqlProvider.MySqlData
                ? Task.Factory.StartNew(() => Caller(id).GetAwaiter().GetResult(), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)
                : Task.Run(() => Caller(id)))
            .ToArray();
        await Task.Delay(TimeSpan.FromSeconds(3));
        TimeSpan down = load.Clock.Elapsed;
        await Task.Factory.StartNew(() => server.Restart(TimeSpan.FromSeconds(2)), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        TimeSpan up = load.Clock.Elapsed;
        Interlocked.Exchange(ref stopAtTicks, Math.Max(stopAtTicks, (up + TimeSpan.FromSeconds(3)).Ticks));
        await Task.WhenAll(callers).WaitAsync(TimeSpan.FromSeconds(60));
        TimeSpan? recovered = load.FirstSuccessAfter(up);

        output.WriteLine($"{provider}: server down at {down.TotalSeconds:0.0} s, up at {up.TotalSeconds:0.0} s, " +
                         $"first success {(recovered - up)?.TotalSeconds:0.00} s after; {load}");
        output.WriteLine(load.Examples());
        Assert.Equal(0, load.Wrong);
        Assert.True(load.Slowest < limit, $"a caller waited {load.Slowest.TotalSeconds:0.0} s, past its timeouts; {load}");
        Assert.True(recovered is not null && recovered.Value - up < TimeSpan.FromSeconds(3), $"no recovery within 3 s of the restart; {load}");
        Assert.True(load.FailureCount > 0, $"the restart went unnoticed, so this test proved nothing; {load}");
        Assert.All(load.Failures.Keys, IsClear);

        // Every connection given back: to the pool by Orseis, and to the server once the pools are cleared.
        await perCall.DisposeAsync();
        await reuse.DisposeAsync();
        Assert.Equal(0, perCall.GetPoolReport().InUse);
        ClearPools(provider);
        await AssertConnectionsBackTo(provider, baseline);
    }

    /// <summary>An error a user can act on: Orseis's own, a cancellation or timeout, or the provider's own word that it could not connect.</summary>
    private static void IsClear(string failure)
    {
        string[] clear =
        [
            nameof(ConnectionBrokenException), nameof(CommandTimeoutException), nameof(PoolExhaustedException), "MySqlException: Unable to connect",
            "MySqlException: Connect Timeout expired", "MySqlException: Reading from the stream has failed",
        ];
        Assert.True(clear.Any(c => failure.StartsWith(c, StringComparison.Ordinal)), $"an unclear error reached the caller: {failure}");
    }

    /// <summary>
    /// Packets to and from the server dropped for a few seconds (no RST): every call, commit and cancellation returns
    /// within its timeout with an error saying what happened, the caller's Cancel() does not block, and everything works
    /// again once packets flow. MySqlConnector only: MySql.Data's async calls run synchronously, so nothing can return
    /// before the provider does.
    /// </summary>
    [FaultFact(needsFirewall: true)]
    public async Task A_server_that_stops_answering_never_holds_a_caller_past_its_timeout()
    {
        const MySqlProvider Provider = MySqlProvider.MySqlConnector;
        int baseline = ServerConnections(Provider);
        string cs = ConnectionString(Provider, "Connect Timeout=2;Maximum Pool Size=20");
        output.WriteLine($"server connections before: {baseline}");
        TimeSpan timeout = TimeSpan.FromSeconds(2);
        TimeSpan bound = timeout + CallWatchGrace + TimeSpan.FromSeconds(1.5);
        var perCall = new Database(Factory(Provider), cs, new OrseisOptions { CommandTimeout = timeout });
        var reuse = new Database(Factory(Provider), cs, new OrseisOptions { Mode = ExecutionMode.ReuseConnection, CommandTimeout = timeout });
        Session session = await perCall.OpenSessionAsync();
        Session streaming = await perCall.OpenSessionAsync();
        Assert.Equal(1, await streaming.ScalarAsync<int>("select 1"));
        await session.ExecuteAsync("create table if not exists fault_rows (id int primary key)");
        await session.ExecuteAsync("delete from fault_rows");
        Assert.Equal(1, await reuse.ScalarAsync<int>("select 1"));
        SessionTransaction tx = await session.BeginTransactionAsync();
        await session.ExecuteAsync("insert into fault_rows (id) values (1)");
        int[] abandoned = [await session.ScalarAsync<int>("select connection_id()"), await streaming.ScalarAsync<int>("select connection_id()")];
        Assert.Equal(1, await session.ScalarAsync<int>("select @@in_transaction"));

        using (new Blackhole(server.Port))
        {
            var clock = Stopwatch.StartNew();
            Task<TimeSpan> commit = Timed(() => Assert.ThrowsAnyAsync<OrseisException>(() => tx.CommitAsync()));
            Task<TimeSpan> shared = Timed(() => Assert.ThrowsAsync<CommandTimeoutException>(() => reuse.ScalarAsync<int>("select 1")));
            using var cancel = new CancellationTokenSource();
            Task<TimeSpan> cancelled = Timed(() => Assert.ThrowsAnyAsync<OperationCanceledException>(() => perCall.ScalarAsync<int>("select 1", cancellationToken: cancel.Token)));
            Task<TimeSpan> cancelledStream = Timed(() => Assert.ThrowsAnyAsync<OperationCanceledException>(async () =>
            {
                await foreach (int _ in streaming.StreamAsync<int>("select 1", cancellationToken: cancel.Token))
                {
                }
            }));
            await Task.Delay(500);
            var cancelClock = Stopwatch.StartNew();
            await cancel.CancelAsync();
            TimeSpan cancelTook = cancelClock.Elapsed;

            TimeSpan commitTook = await commit;
            TimeSpan sharedTook = await shared;
            TimeSpan cancelledTook = await cancelled;
            TimeSpan streamTook = await cancelledStream;
            output.WriteLine($"blackhole: commit {commitTook.TotalSeconds:0.00} s, reuse call {sharedTook.TotalSeconds:0.00} s, " +
                             $"cancelled call {cancelledTook.TotalSeconds:0.00} s, cancelled stream {streamTook.TotalSeconds:0.00} s, Cancel() {cancelTook.TotalMilliseconds:0} ms");
            Assert.True(commitTook < bound, $"the commit took {commitTook.TotalSeconds:0.0} s");
            Assert.True(sharedTook < bound, $"the ReuseConnection call took {sharedTook.TotalSeconds:0.0} s");
            Assert.True(cancelledTook < TimeSpan.FromSeconds(0.5) + CallWatchGrace + TimeSpan.FromSeconds(1), $"the cancelled call took {cancelledTook.TotalSeconds:0.0} s");
            Assert.True(streamTook < bound, $"the cancelled stream took {streamTook.TotalSeconds:0.0} s");
            Assert.True(cancelTook < TimeSpan.FromMilliseconds(200), $"Cancel() blocked for {cancelTook.TotalMilliseconds:0} ms");
            Assert.Null(session.Transaction);
            Assert.True(clock.Elapsed < TimeSpan.FromSeconds(15));
        }

        // Packets flow again: every way of running recovers.
        var recovery = Stopwatch.StartNew();
        foreach (SqlRunner runner in new SqlRunner[] { perCall, reuse, session, streaming })
            Assert.Equal(7, await Eventually(() => runner.ScalarAsync<int>("select 7")));
        output.WriteLine($"recovered in {recovery.Elapsed.TotalSeconds:0.00} s");

        // The session's connection under the failed commit was closed (rolling back what it held); whatever the pool hands
        // out afterwards, the abandoned connections included once the provider let go of them and reset them, carries no transaction.
        Assert.Equal(0, await session.ScalarAsync<int>("select @@in_transaction"));
        Assert.Equal(0, await streaming.ScalarAsync<int>("select @@in_transaction"));
        for (int i = 0; i < 10; i++)
            Assert.Equal(0, await perCall.ScalarAsync<int>("select @@in_transaction"));
        output.WriteLine($"abandoned connections: {string.Join(", ", abandoned)}");

        // Every connection given back to its pool once the provider let go of the abandoned ones. (The server may still
        // list sessions whose close was dropped with the packets: it cannot know they are gone until wait_timeout.)
        await session.DisposeAsync();
        await streaming.DisposeAsync();
        var released = Stopwatch.StartNew();
        while ((perCall.GetPoolReport().InUse > 0 || reuse.GetPoolReport().InUse > 1) && released.Elapsed < TimeSpan.FromSeconds(30))
            await Task.Delay(200);
        Assert.Equal(0, perCall.GetPoolReport().InUse);
        Assert.True(reuse.GetPoolReport().InUse <= 1, "the ReuseConnection database holds more than its one connection");
        await perCall.DisposeAsync();
        await reuse.DisposeAsync();
        output.WriteLine($"server connections afterwards: {ServerConnections(Provider)} (before: {baseline})");
    }

    /// <summary>About 1000 async callers for about 15 s through a pool of 100: no wrong result, no error, no leaked connection.</summary>
    [FaultFact]
    public async Task A_thousand_callers_through_a_pool_of_a_hundred_get_right_results_and_leak_nothing()
    {
        const MySqlProvider Provider = MySqlProvider.MySqlConnector;
        int baseline = ServerConnections(Provider);
        var db = new Database(Factory(Provider), ConnectionString(Provider, "Maximum Pool Size=100;Connect Timeout=30"));
        var load = new LoadResult();
        TimeSpan runFor = TimeSpan.FromSeconds(15);

        async Task Caller(int id)
        {
            for (int i = 0; load.Clock.Elapsed < runFor; i++)
            {
                int v = id * 100_000 + i;
                await load.RunAsync(v, () => db.ScalarAsync<int>("select @v", new { v }));
            }
        }

        await Task.WhenAll(Enumerable.Range(0, 1000).Select(id => Task.Run(() => Caller(id)))).WaitAsync(TimeSpan.FromSeconds(90));
        output.WriteLine($"1000 callers, pool of 100: {load}; peak in use {db.GetPoolReport().PeakInUse}");
        Assert.Equal(0, load.Wrong);
        Assert.Equal(0, load.FailureCount);
        Assert.True(load.Calls > 1000, load.ToString());
        Assert.Equal(0, db.GetPoolReport().InUse);
        await db.DisposeAsync();
        ClearPools(Provider);
        await AssertConnectionsBackTo(Provider, baseline);
    }

    private static TimeSpan CallWatchGrace => TimeSpan.FromSeconds(1);

    private static async Task<TimeSpan> Timed(Func<Task> call)
    {
        var clock = Stopwatch.StartNew();
        await call();
        return clock.Elapsed;
    }

    private static async Task<T> Eventually<T>(Func<Task<T>> call)
    {
        var clock = Stopwatch.StartNew();
        while (true)
        {
            try
            {
                return await call();
            }
            catch (Exception) when (clock.Elapsed < TimeSpan.FromSeconds(20))
            {
                await Task.Delay(200);
            }
        }
    }

    /// <summary>Connections the test user has on the server, asked over a connection of its own outside any pool.</summary>
    private int ServerConnections(MySqlProvider provider) => Convert.ToInt32(Ask(provider, new MySqlDialect(provider).ConnectionCountSql), System.Globalization.CultureInfo.InvariantCulture);

    private object? Ask(MySqlProvider provider, string sql)
    {
        using DbConnection connection = Factory(provider).CreateConnection()!;
        connection.ConnectionString = ConnectionString(provider, "Pooling=false");
        connection.Open();
        using DbCommand command = connection.CreateCommand();
        command.CommandText = sql;
        return command.ExecuteScalar();
    }

    private async Task AssertConnectionsBackTo(MySqlProvider provider, int baseline, TimeSpan? wait = null)
    {
        var clock = Stopwatch.StartNew();
        int now;
        while ((now = ServerConnections(provider)) > baseline && clock.Elapsed < (wait ?? TimeSpan.FromSeconds(10)))
            await Task.Delay(200);
        string left = now <= baseline ? "" : Ask(provider,
            "select group_concat(concat(id, ' ', command, ' ', time, 's ', coalesce(state, ''), ' ', coalesce(left(info, 40), '')) separator ' | ') " +
            "from information_schema.processlist where user = 'orseis' and id <> connection_id()") as string ?? "";
        output.WriteLine($"server connections after {clock.Elapsed.TotalSeconds:0.0} s: {now} (before: {baseline}) {left}");
        Assert.True(now <= baseline, $"{now} connections on the server after the test, {baseline} before: {left}");
    }

    private static void ClearPools(MySqlProvider provider)
    {
        if (provider == MySqlProvider.MySqlConnector)
            MySqlConnector.MySqlConnection.ClearAllPools();
        else
            MySql.Data.MySqlClient.MySqlConnection.ClearAllPools();
    }
}
