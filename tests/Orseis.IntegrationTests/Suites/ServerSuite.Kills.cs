using System.Diagnostics;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// Connections killed by the server before and during a call, in every way of running and every call form: the caller
/// always gets a <see cref="ConnectionBrokenException"/> with the provider's exception inside, and the next call works.
/// </summary>
public abstract partial class ServerSuite
{
    /// <summary>Every call shape (buffered, stream, grid), sync and async: each must fail alike.</summary>
    private static readonly string[] CallForms =
        ["execute async", "execute sync", "stream async", "stream sync", "grid async", "grid sync", "reader async", "reader sync", "scalar async"];

    protected async Task A_connection_killed_during_a_call_is_reported_alike_in_every_mode()
    {
        Database killer = Open(ExecutionMode.OpenPerCall);
        Database perCall = Open(ExecutionMode.OpenPerCall);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        await using Session session = await Open(ExecutionMode.OpenPerCall).OpenSessionAsync();
        foreach ((string mode, SqlRunner runner) in new (string, SqlRunner)[] { ("OpenPerCall", perCall), ("ReuseConnection", reuse), ("Session", session) })
        {
            foreach (string form in CallForms)
            {
                string marker = "orseis_kill_" + Guid.NewGuid().ToString("N")[..12];
                string sql = Dialect.MarkedSleepSql(20, marker);
                var clock = Stopwatch.StartNew();
                Task call = Task.Run(() => Call(runner, form, sql));
                Kill(killer, await FindBackendAsync(killer, marker, call));

                var error = await Assert.ThrowsAsync<ConnectionBrokenException>(() => call);
                Assert.True(clock.Elapsed < TimeSpan.FromSeconds(15), $"{mode}, {form}: the killed call took {clock.Elapsed.TotalSeconds:0.0} s");
                Assert.False(error.InTransaction, $"{mode}, {form}");
                Assert.True(error.StatementMayHaveRun, $"{mode}, {form}");
                Assert.NotNull(error.InnerException);
                Assert.Equal(1, await runner.ScalarAsync<int>("select 1"));
            }
        }
    }

    protected async Task A_connection_killed_between_calls_is_replaced_in_every_mode()
    {
        Database killer = Open(ExecutionMode.OpenPerCall);
        Database perCall = Open(ExecutionMode.OpenPerCall, Dialect.SingleConnectionPool);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        await using Session session = await Open(ExecutionMode.OpenPerCall).OpenSessionAsync();
        foreach ((string mode, SqlRunner runner) in new (string, SqlRunner)[] { ("OpenPerCall", perCall), ("ReuseConnection", reuse), ("Session", session) })
        {
            foreach (string form in CallForms)
            {
                int victim = await runner.ScalarAsync<int>(Dialect.BackendIdSql);
                Kill(killer, victim);

                // A pool that checks its connection on open (MySqlConnector's reset) hides the kill; otherwise the
                // first call reports it. Either way nothing else may surface, and the call after it runs.
                try
                {
                    await Call(runner, form, "select 1");
                }
                catch (ConnectionBrokenException error)
                {
                    Assert.False(error.InTransaction, $"{mode}, {form}");
                    Assert.NotNull(error.InnerException);
                }

                Assert.NotEqual(victim, await runner.ScalarAsync<int>(Dialect.BackendIdSql));
            }
        }
    }

    /// <summary>
    /// Runs <paramref name="sql"/> in the call form <paramref name="form"/> and reads every row. A grid runs it as its
    /// second result set, after a first one that is read on the way.
    /// </summary>
    private static async Task Call(SqlRunner runner, string form, string sql, TimeSpan? timeout = null, CancellationToken cancellationToken = default)
    {
        switch (form)
        {
            case "execute async":
                await runner.ExecuteAsync(sql, timeout: timeout, cancellationToken: cancellationToken);
                break;
            case "execute sync":
                runner.Execute(sql, timeout: timeout);
                break;
            case "stream async":
                await foreach (object? _ in runner.StreamAsync<object?>(sql, timeout: timeout, cancellationToken: cancellationToken))
                {
                }

                break;
            case "stream sync":
                foreach (object? _ in runner.Stream<object?>(sql, timeout: timeout))
                {
                }

                break;
            case "grid async":
                await using (GridReader grids = await runner.QueryMultipleAsync(
                    "select 1 as first_set; " + sql, timeout: timeout, cancellationToken: cancellationToken))
                {
                    Assert.Equal(1, await grids.ReadSingleAsync<int>(cancellationToken));
                    await grids.ReadAsync<object?>(cancellationToken);
                }

                break;
            case "reader async":
                await using (System.Data.Common.DbDataReader reader = await runner.ExecuteReaderAsync(sql, timeout: timeout, cancellationToken: cancellationToken))
                {
                    while (await reader.ReadAsync(cancellationToken))
                    {
                    }
                }

                break;
            case "reader sync":
                using (System.Data.Common.DbDataReader reader = runner.ExecuteReader(sql, timeout: timeout))
                {
                    while (reader.Read())
                    {
                    }
                }

                break;
            case "grid sync":
                using (GridReader grids = runner.QueryMultiple("select 1 as first_set; " + sql, timeout: timeout))
                {
                    Assert.Equal(1, grids.ReadSingle<int>());
                    grids.Read<object?>();
                }

                break;
            default:
                await runner.ScalarAsync<object?>(sql, timeout: timeout, cancellationToken: cancellationToken);
                break;
        }
    }

    /// <summary>The backend running the statement marked <paramref name="marker"/>, waiting at most 10 s for it to start.</summary>
    private async Task<int> FindBackendAsync(Database db, string marker, Task call)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < TimeSpan.FromSeconds(10))
        {
            if (call.IsCompleted)
                await call; // it failed before it ran: show why
            if (await db.ScalarAsync<int?>(Dialect.FindBackendSql, new { marker }) is { } backend)
                return backend;
            await Task.Delay(20);
        }

        throw new TimeoutException($"The statement marked {marker} never showed up on the server.");
    }
}
