using Orseis.Diagnostics;

namespace Orseis.Tests.Modes;

/// <summary>
/// The races of a <see cref="ConnectionScope"/>'s slot (one compare-exchange to take the parked connection, one to park,
/// one exchange to end): threads of one scope taking and parking at once, and a scope ended while its calls park. Every
/// count is exact once they are done: each call opened or reused, nothing in use or parked, every connection closed and
/// every command disposed, the report's reuses the scope's own.
/// </summary>
public sealed class ConnectionScopeRaceTests() : RecordedScopeTest("create table items (id integer primary key, name text not null)")
{
    private const int Threads = 6;
    private const int CallsEach = 150;

    /// <summary>Runs <see cref="CallsEach"/> calls on each of <see cref="Threads"/> threads of the caller's flow, all at once.</summary>
    private static async Task RunThreadsAsync(Database db, Action<int>? afterCall = null)
    {
        using var start = new Barrier(Threads);
        Task[] threads = [.. Enumerable.Range(0, Threads).Select(t => Task.Factory.StartNew(
            () =>
            {
                start.SignalAndWait();
                for (int i = 0; i < CallsEach; i++)
                {
                    Assert.Equal(t * 1000 + i, db.Scalar<long>("select @v", new { v = t * 1000 + i }));
                    afterCall?.Invoke(i);
                }
            },
            CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default))];
        await Task.WhenAll(threads);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Threads_taking_and_parking_in_one_scope_leave_every_count_exact(bool timed)
    {
        await using Database db = Open(timed);
        long reused;
        await using (ConnectionScope scope = db.BeginScope())
        {
            await RunThreadsAsync(db);

            // Every call opened a connection or took the parked one; each call's end parked its connection or gave it back,
            // and the last ones left exactly one parked (nothing sweeps on this clock).
            PoolReport during = db.GetPoolReport();
            reused = scope.ReusedCalls;
            Assert.Equal(Threads * CallsEach, during.Opens + reused);
            Assert.True(reused > 0, "no call took the parked connection");
            Assert.Equal(0, during.InUse);
            Assert.Equal(1, during.ParkedConnections);
            Assert.Equal(1, Source.OpenConnections);
        }

        PoolReport report = db.GetPoolReport();
        Assert.Equal(reused, report.ScopeReuses);
        Assert.Equal(0, report.InUse);
        Assert.Equal(0, report.ParkedConnections);
        Assert.Equal(0, Source.OpenConnections);
        Assert.Equal(Source.CommandsCreated, Source.Disposed.Count);
        Assert.Equal(Threads * CallsEach, Source.Executions.Count);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_scope_ended_while_its_calls_park_gives_every_connection_back(bool timed)
    {
        await using Database db = Open(timed);
        ConnectionScope scope = db.BeginScope();
        int calls = 0;
        using var halfway = new ManualResetEventSlim();

        // The threads keep calling while the scope ends under them: calls that took the parked connection before the end
        // give it back as they end, parks that lose to the end give theirs back, and later calls open per call.
        Task running = RunThreadsAsync(db, _ =>
        {
            if (Interlocked.Increment(ref calls) == Threads * CallsEach / 2)
                halfway.Set();
        });
        Assert.True(halfway.Wait(TimeSpan.FromSeconds(30)), "the calls did not get halfway");
        await scope.DisposeAsync();
        long reusedAtEnd = scope.ReusedCalls;
        await running;

        PoolReport report = db.GetPoolReport();
        Assert.Equal(0, report.InUse);
        Assert.Equal(0, report.ParkedConnections);
        Assert.Equal(0, Source.OpenConnections);
        Assert.Equal(Source.CommandsCreated, Source.Disposed.Count);
        Assert.Equal(scope.ReusedCalls, report.ScopeReuses); // a reuse counted after the end is told as its call ends
        Assert.True(scope.ReusedCalls >= reusedAtEnd);
        Assert.Equal(Threads * CallsEach, report.Opens + scope.ReusedCalls);
    }

    [Fact]
    public async Task Scopes_ending_while_calls_park_in_them_many_times_leave_nothing_behind()
    {
        await using Database db = Open(timed: false);
        for (int round = 0; round < 40; round++)
        {
            ConnectionScope scope = db.BeginScope();
            using var go = new Barrier(3);
            Task[] calls = [.. Enumerable.Range(0, 2).Select(_ => Task.Run(() =>
            {
                go.SignalAndWait();
                for (int i = 0; i < 5; i++)
                    db.Scalar<long>("select @v", new { v = i });
            }))];
            go.SignalAndWait();
            await Task.Yield();
            scope.Dispose(); // while the two threads call and park
            await Task.WhenAll(calls);

            PoolReport report = db.GetPoolReport();
            Assert.Equal(0, report.InUse);
            Assert.Equal(0, report.ParkedConnections);
            Assert.Equal(0, Source.OpenConnections);
        }

        Assert.Equal(Source.CommandsCreated, Source.Disposed.Count);
        Assert.Equal(80 * 5, db.GetPoolReport().Opens + db.GetPoolReport().ScopeReuses);
    }

    [Fact]
    public async Task A_parked_connection_counts_as_taken_in_the_pools_peak_but_not_as_in_use()
    {
        await using Database db = Open(timed: false);
        await using (db.BeginScope())
        {
            db.Scalar<long>("select 1");
            Assert.Equal(1, db.GetPoolReport().ParkedConnections);

            // Another flow's call opens a second connection while the first sits parked: both are out of the provider's pool.
            Task<long> other;
            using (ExecutionContext.SuppressFlow())
                other = Task.Run(() => db.Scalar<long>("select 2"));
            Assert.Equal(2, await other);
            PoolReport report = db.GetPoolReport();
            Assert.Equal(0, report.InUse);
            Assert.Equal(1, report.ParkedConnections);
            Assert.Equal(2, report.PeakInUse);
        }
    }
}
