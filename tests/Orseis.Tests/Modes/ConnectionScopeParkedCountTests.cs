using Orseis.Diagnostics;

namespace Orseis.Tests.Modes;

/// <summary>
/// The parked count of busy scopes. A scope whose connection was reused <see cref="ScopeSlot.ListEvery"/> times is listed
/// by the pool and its parks are counted by its slot's state, not by a shared count; the pool's readers add the listed slots.
/// The count reads exact after every call and during one, the list empties as scopes end or their connection goes back
/// idle, and readers racing scopes that take, park, list and unlist never read a connection twice or a negative count.
/// </summary>
public sealed class ConnectionScopeParkedCountTests()
    : RecordedScopeTest("create table items (id integer primary key)", "insert into items (id) values (1), (2), (3)")
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_busy_scope_is_listed_and_its_parked_connection_reads_exact_after_each_call_and_during_one(bool timed)
    {
        await using Database db = Open(timed);
        PoolTelemetry telemetry = db.Pool.Telemetry;
        await using (ConnectionScope scope = db.BeginScope())
        {
            for (long call = 1; call <= 3 * ScopeSlot.ListEvery; call++)
            {
                Assert.Equal(call, await db.ScalarAsync<long>("select @call", new { call }));
                Assert.Equal(call - 1 >= ScopeSlot.ListEvery ? 1 : 0, telemetry.ListedSlots);
                PoolReport report = db.GetPoolReport();
                Assert.Equal(1, report.ParkedConnections);
                Assert.Equal(0, report.InUse);
            }

            // Listed: a stream takes the parked connection, in use while it is read, and parks it again uncounted.
            int rows = 0;
            await foreach (long id in db.StreamAsync<long>("select id from items order by id"))
            {
                PoolReport during = db.GetPoolReport();
                Assert.Equal(1, during.InUse);
                Assert.Equal(0, during.ParkedConnections);
                Assert.Equal(0, telemetry.ParkedRaw);
                rows++;
            }

            Assert.Equal(3, rows);
            Assert.Equal(1, telemetry.ParkedRaw);
            Assert.Equal(3 * ScopeSlot.ListEvery, scope.ReusedCalls);
        }

        // The end takes the slot out of the list and its parked connection back to the pool.
        PoolReport ended = db.GetPoolReport();
        Assert.Equal(0, telemetry.ListedSlots);
        Assert.Equal(0, ended.ParkedConnections);
        Assert.Equal(0, ended.InUse);
        Assert.Equal(3 * ScopeSlot.ListEvery, ended.ScopeReuses);
        Assert.Equal(0, Source.OpenConnections);
        Assert.Equal(Source.CommandsCreated, Source.Disposed.Count);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_listed_scope_whose_connection_goes_back_idle_leaves_the_list_and_is_listed_again_when_busy(bool timed)
    {
        await using Database db = Open(timed);
        PoolTelemetry telemetry = db.Pool.Telemetry;
        await using (ConnectionScope scope = db.BeginScope())
        {
            for (int call = 0; call <= ScopeSlot.ListEvery; call++)
                await db.ScalarAsync<long>("select 1");
            Assert.Equal(1, telemetry.ListedSlots);

            // Idle for two sweeps: the connection goes back and the slot leaves the list (a scope never disposed is not kept).
            Time.Advance(TimeSpan.FromMilliseconds(4));
            Assert.Equal(0, telemetry.ListedSlots);
            Assert.Equal(0, db.GetPoolReport().ParkedConnections);
            Assert.Equal(0, Source.OpenConnections);

            // Busy again: parks counted in the pool's count, then, after enough reuses of the new connection, by the slot.
            for (int call = 0; call < 8 * ScopeSlot.ListEvery; call++)
            {
                await db.ScalarAsync<long>("select 1");
                PoolReport report = db.GetPoolReport();
                Assert.Equal(Source.OpenConnections, report.ParkedConnections);
                Assert.Equal(0, report.InUse);
            }

            Assert.Equal(1, db.GetPoolReport().ParkedConnections);
            Assert.Equal(1, telemetry.ListedSlots);
        }

        Assert.Equal(0, telemetry.ListedSlots);
        Assert.Equal(0, db.GetPoolReport().ParkedConnections);
        Assert.Equal(0, db.GetPoolReport().InUse);
        Assert.Equal(0, Source.OpenConnections);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_listed_scope_whose_call_does_not_park_leaves_the_list(bool timed)
    {
        await using Database db = Open(timed);
        PoolTelemetry telemetry = db.Pool.Telemetry;
        // The pool's memory says a pause follows Paused: a call running it gives its connection back instead of parking.
        const string Busy = "select 1 as busy_statement";
        const string Paused = "select 2 as the_statement_a_pause_follows";
        Assert.NotEqual(ParkMemory.KeyOf(Busy) & (ParkMemory.Cells - 1), ParkMemory.KeyOf(Paused) & (ParkMemory.Cells - 1));
        for (int i = 0; i < ParkMemory.Threshold; i++)
            db.Pool.ParkMemory.Unused(ParkMemory.KeyOf(Paused));
        await using (db.BeginScope())
        {
            for (int call = 0; call <= ScopeSlot.ListEvery; call++)
                await db.ScalarAsync<long>(Busy);
            Assert.Equal(1, telemetry.ListedSlots);

            Assert.Equal(2, await db.ScalarAsync<long>(Paused));
            Assert.Equal(0, telemetry.ListedSlots);
            PoolReport report = db.GetPoolReport();
            Assert.Equal(0, report.ParkedConnections);
            Assert.Equal(0, report.InUse);
            Assert.Equal(0, Source.OpenConnections);

            for (int call = 0; call < 3 * ScopeSlot.ListEvery; call++)
            {
                await db.ScalarAsync<long>(Busy);
                Assert.Equal(1, db.GetPoolReport().ParkedConnections);
                Assert.Equal(0, db.GetPoolReport().InUse);
            }

            Assert.Equal(1, telemetry.ListedSlots);
        }

        Assert.Equal(0, telemetry.ListedSlots);
        Assert.Equal(0, db.GetPoolReport().ParkedConnections);
        Assert.Equal(0, Source.OpenConnections);
    }

    [Theory]
    [InlineData(false, false)]
    [InlineData(true, false)]
    [InlineData(false, true)]
    [InlineData(true, true)]
    public async Task Readers_racing_busy_scopes_and_the_sweep_never_read_a_connection_twice_and_read_exact_between_calls(
        bool timed, bool sweepRacing)
    {
        const int Workers = 4;
        const int Rounds = 12;
        const int CallsEachRound = 3 * ScopeSlot.ListEvery;
        await using Database db = Open(timed);
        PoolTelemetry telemetry = db.Pool.Telemetry;
        var failures = new System.Collections.Concurrent.ConcurrentQueue<string>();
        var clockLock = new Lock();
        int round = 0;

        // Between rounds every worker is between calls: each scope's connection is parked, or went back to the pool (the sweep),
        // so the parked count is exactly the connections open, none in use. Every fourth round the clock passes two windows
        // there: every parked connection goes back and every slot leaves the list.
        using var between = new Barrier(Workers, _ =>
        {
            lock (clockLock)
            {
                long parked = telemetry.ParkedRaw;
                if (parked != Source.OpenConnections || telemetry.InUse != 0)
                    failures.Enqueue($"round {round}: parked {parked}, open {Source.OpenConnections}, in use {telemetry.InUse}");
                if (!sweepRacing && parked != Workers)
                    failures.Enqueue($"round {round}: parked {parked} with {Workers} scopes between calls");
                if (++round % 4 == 0)
                {
                    Time.Advance(TimeSpan.FromMilliseconds(4));
                    if (telemetry.ParkedRaw != 0 || telemetry.ListedSlots != 0 || Source.OpenConnections != 0)
                        failures.Enqueue($"round {round}: after the sweep, parked {telemetry.ParkedRaw}, listed {telemetry.ListedSlots}");
                }
            }
        });

        using var stop = new CancellationTokenSource();
        Task reader = Task.Factory.StartNew(
            () =>
            {
                while (!stop.IsCancellationRequested)
                {
                    // Each scope holds one connection at most, in a call or parked: more parked than scopes is one read twice.
                    long parked = telemetry.ParkedRaw;
                    if (parked < 0 || parked > Workers)
                        failures.Enqueue($"read {parked} parked with {Workers} scopes");
                    if (telemetry.InUse > Workers)
                        failures.Enqueue($"read {telemetry.InUse} in use with {Workers} scopes");
                }
            },
            CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        Task sweeper = sweepRacing
            ? Task.Factory.StartNew(
                () =>
                {
                    // The sweep gives back and unlists while the scopes take and park (a window here is 2 ms of this clock).
                    while (!stop.IsCancellationRequested)
                    {
                        lock (clockLock)
                            Time.Advance(TimeSpan.FromMilliseconds(1));
                        Thread.Yield();
                    }
                },
                CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)
            : Task.CompletedTask;

        Task[] workers = [.. Enumerable.Range(0, Workers).Select(w => Task.Factory.StartNew(
            () =>
            {
                using ConnectionScope scope = db.BeginScope();
                try
                {
                    for (int r = 0; r < Rounds; r++)
                    {
                        for (int i = 0; i < CallsEachRound; i++)
                            Assert.Equal(w * 1000 + i, db.Scalar<long>("select @v", new { v = w * 1000 + i }));
                        between.SignalAndWait();
                    }
                }
                catch (Exception) when (TryLeave(between))
                {
                    throw; // a failed worker leaves the barrier: the others go on, and the test fails on this one
                }
            },
            CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default))];
        try
        {
            await Task.WhenAll(workers);
        }
        finally
        {
            await stop.CancelAsync();
            await Task.WhenAll(reader, sweeper);
        }

        Assert.Empty(failures);
        Assert.Equal(Rounds, round);
        PoolReport report = db.GetPoolReport();
        Assert.Equal(0, telemetry.ListedSlots);
        Assert.Equal(0, report.ParkedConnections);
        Assert.Equal(0, report.InUse);
        Assert.Equal(0, Source.OpenConnections);
        Assert.Equal(Workers * Rounds * CallsEachRound, report.Opens + report.ScopeReuses);
        Assert.Equal(Source.CommandsCreated, Source.Disposed.Count);
    }

    private static bool TryLeave(Barrier barrier)
    {
        barrier.RemoveParticipant();
        return true;
    }
}
