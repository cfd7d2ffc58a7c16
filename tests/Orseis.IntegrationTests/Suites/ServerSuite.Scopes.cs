using Orseis.Diagnostics;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// <see cref="ConnectionScope"/> on a real server: back-to-back calls run on one server session and see its state; a
/// new scope does not; streams open side by side never share a connection; a connection killed or a call cancelled
/// while parked leaves nothing wrong and nothing held.
/// </summary>
public abstract partial class ServerSuite
{
    /// <summary>A window long enough that a parked connection stays parked for the test's steps, whatever the machine's load.</summary>
    private Database OpenScoped(string? connectionString = null) =>
        Open(ExecutionMode.OpenPerCall, connectionString, o =>
        {
            o.ScopeIdleWindow = TimeSpan.FromSeconds(10);
            o.Diagnostics.Detectors = FindingKind.All;
        });

    protected async Task A_scope_runs_back_to_back_calls_on_one_server_session_and_the_next_scope_gets_a_reset_one()
    {
        Database db = OpenScoped(Dialect.SingleConnectionPool);
        int first;
        await using (ConnectionScope scope = db.BeginScope())
        {
            first = await db.ScalarAsync<int>(Dialect.BackendIdSql);
            await db.ExecuteAsync(Dialect.CreateTempTableSql);
            await db.ExecuteAsync(Text($"insert into {Dialect.TempTable} (v) values (1)"));
            db.Scalar<object>(Dialect.SetSessionVariableSql, new { value = "kept" });
            Assert.Equal(1, await db.ScalarAsync<int>(Text($"select count(*) from {Dialect.TempTable}")));
            Assert.Equal("kept", await db.ScalarAsync<string>(Dialect.GetSessionVariableSql));
            Assert.Equal(first, db.Scalar<int>(Dialect.BackendIdSql));
            Assert.Equal(6, scope.ReusedCalls);
        }

        Assert.Equal(0, db.GetPoolReport().ParkedConnections);
        await using (db.BeginScope())
        {
            // The pool of one hands out the same server session, reset by the provider: nothing crosses scopes.
            Assert.Equal(first, await db.ScalarAsync<int>(Dialect.BackendIdSql));
            Assert.True(string.IsNullOrEmpty(await db.ScalarAsync<string>(Dialect.GetSessionVariableSql)), "a session variable crossed scopes");
            await Assert.ThrowsAnyAsync<Exception>(() => db.ScalarAsync<int>(Text($"select count(*) from {Dialect.TempTable}")));
        }

        PoolReport report = db.GetPoolReport();
        Assert.Equal(2, report.Opens);
        Assert.Equal(0, report.InUse);
        Assert.DoesNotContain(report.Findings, f => f.Kind is FindingKind.Churn or FindingKind.HeldTooLong or FindingKind.Saturation);
    }

    protected async Task Streams_open_side_by_side_in_a_scope_run_on_separate_connections()
    {
        Database db = OpenScoped();
        await using ConnectionScope scope = db.BeginScope();
        int parked = await db.ScalarAsync<int>(Dialect.BackendIdSql);
        var backends = new List<int>();
        var readers = new List<IAsyncEnumerator<int>>();
        for (int i = 0; i < 3; i++)
        {
            IAsyncEnumerator<int> reader = db.StreamAsync<int>(Dialect.BackendIdSql).GetAsyncEnumerator();
            Assert.True(await reader.MoveNextAsync());
            backends.Add(reader.Current);
            readers.Add(reader);
        }

        Assert.Equal(3, backends.Distinct().Count());
        Assert.Contains(parked, backends); // the first stream took the parked connection
        Assert.Equal(3, db.GetPoolReport().InUse);
        foreach (IAsyncEnumerator<int> reader in readers)
            await reader.DisposeAsync();

        PoolReport report = db.GetPoolReport();
        Assert.Equal(0, report.InUse);
        Assert.Equal(1, report.ParkedConnections); // one parks; the two others went back to the pool
        Assert.Contains(await db.ScalarAsync<int>(Dialect.BackendIdSql), backends);
    }

    protected async Task A_connection_killed_or_a_call_cancelled_while_parked_leaves_nothing_wrong()
    {
        Database killer = Open(ExecutionMode.OpenPerCall);
        Database db = OpenScoped();
        await using (ConnectionScope scope = db.BeginScope())
        {
            int victim = await db.ScalarAsync<int>(Dialect.BackendIdSql);
            Kill(killer, victim);

            // The provider cannot know its parked connection died: the next call fails as a call on a killed kept connection
            // does, or, where the provider notices first, opens a new one. The call after it runs on a live connection.
            try
            {
                Assert.Equal(1, await db.ScalarAsync<int>("select 1"));
            }
            catch (ConnectionBrokenException error)
            {
                Assert.False(error.InTransaction);
                Assert.NotNull(error.InnerException);
            }

            int next = await db.ScalarAsync<int>(Dialect.BackendIdSql);
            Assert.NotEqual(victim, next);

            using (var cancelled = new CancellationTokenSource())
            {
                await cancelled.CancelAsync();
                await Assert.ThrowsAnyAsync<OperationCanceledException>(() => db.ScalarAsync<int>("select 1", cancellationToken: cancelled.Token));
            }

            using (var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(300)))
                await Assert.ThrowsAnyAsync<OperationCanceledException>(() => db.ExecuteAsync(Dialect.SleepSql, cancellationToken: cancel.Token));
            Assert.Equal(1, await db.ScalarAsync<int>("select 1"));
            Assert.True(scope.ReusedCalls >= 2, $"reused {scope.ReusedCalls}");
        }

        PoolReport report = db.GetPoolReport();
        Assert.Equal(0, report.InUse);
        Assert.Equal(0, report.ParkedConnections);
    }
}
