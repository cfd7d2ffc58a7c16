using Microsoft.Extensions.Time.Testing;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Modes;

/// <summary>
/// How the idle sweep finds a scope's parked connection (<see cref="ParkSweep.Register"/>): through the parking thread's
/// cell, which the next sweep empties into its queue, so a scope that parks and ends between two sweeps is never queued.
/// Whatever happens to the thread or its cell afterwards, a connection parked and not taken goes back after the window:
/// when the thread ended, when another scope's park took its place in the cell, or when it parked again and again.
/// </summary>
public sealed class ConnectionScopeSweepTests : IDisposable
{
    private static readonly TimeSpan Window = TimeSpan.FromMilliseconds(2);
    private readonly SqliteFile _file = new();
    private readonly FakeTimeProvider _time = new(); // a sweep of the database's own, ticking only when a test advances it
    private readonly Database _db;

    public ConnectionScopeSweepTests()
    {
        _db = _file.Open(configure: o => o.Diagnostics.TimeProvider = _time);
        _db.Execute("create table items (id integer primary key, name text not null)");
        _db.Execute("insert into items (id, name) values (1, 'one')");
    }

    public void Dispose()
    {
        _db.Dispose();
        _file.Dispose();
    }

    private long Parked => _db.GetPoolReport().ParkedConnections;

    private string Name() => _db.Scalar<string>("select name from items where id = 1") ?? "";

    /// <summary>
    /// Runs <paramref name="work"/> on a thread of its own (so its first park makes a cell in this database's sweep), in a flow
    /// of its own (the caller's context does not flow: a scope of the caller's is not its), and waits for its end.
    /// </summary>
    private static void OnNewThread(Action work)
    {
        Exception? failed = null;
        var thread = new Thread(() =>
        {
            try
            {
                work();
            }
            catch (Exception error)
            {
                failed = error;
            }
        });
        thread.UnsafeStart();
        thread.Join();
        if (failed is not null)
            throw new InvalidOperationException("the thread's work failed", failed);
    }

    [Fact]
    public void A_connection_parked_by_a_thread_that_ended_goes_back_after_the_window()
    {
        ConnectionScope? scope = null;
        OnNewThread(() =>
        {
            scope = _db.BeginScope();
            Assert.Equal("one", Name()); // parks, in the thread's cell; the scope is never disposed on it
        });
        Assert.Equal(1, Parked);

        _time.Advance(Window); // the sweep takes the slot out of the dead thread's cell: parked for less than a window
        Assert.Equal(1, Parked);
        _time.Advance(Window);
        Assert.Equal(0, Parked);
        Assert.Equal(0, _db.GetPoolReport().InUse);
        scope!.Dispose();
    }

    [Fact]
    public void A_scope_whose_place_in_the_cell_another_scope_took_is_still_swept()
    {
        // Two flows on one thread (as two requests' awaits resume on one pool thread): each parks in its own scope.
        ExecutionContext outside = ExecutionContext.Capture()!;
        long opens = _db.GetPoolReport().Opens;
        ConnectionScope? first = null, second = null;
        OnNewThread(() =>
        {
            first = _db.BeginScope();
            Name();
            ExecutionContext.Run(outside, _ =>
            {
                second = _db.BeginScope();
                Name(); // parks in the cell: the first scope's slot moves to the queue, its connection still parked
            }, null);
        });
        Assert.NotNull(first);
        Assert.NotNull(second);
        Assert.Equal(2, Parked);
        Assert.Equal(opens + 2, _db.GetPoolReport().Opens);

        _time.Advance(Window);
        Assert.Equal(2, Parked);
        _time.Advance(Window);
        Assert.Equal(0, Parked);
        first!.Dispose();
        second!.Dispose();
        Assert.Equal(0, _db.GetPoolReport().InUse);
    }

    [Fact]
    public void A_scope_that_keeps_calling_keeps_its_connection_and_ended_threads_lose_their_cells()
    {
        ParkSweep sweep = _db.Pool.Parks;
        long opens = _db.GetPoolReport().Opens;
        using ConnectionScope scope = _db.BeginScope();
        Name(); // parks: this thread's cell, if it has none yet, is made in this sweep now
        for (int t = 0; t < 3; t++)
        {
            OnNewThread(() =>
            {
                using ConnectionScope ended = _db.BeginScope();
                Name();
            });
        }

        int cells = sweep.Cells;
        Assert.True(cells >= 3, $"{cells} cells");

        // A call every half window: the connection is taken before it is due, parked again, and never given back; the sweep
        // ticks throughout (something is parked), and every 256th tick drops the cells of the threads that ended.
        for (int i = 0; i < 600; i++)
        {
            _time.Advance(Window / 2);
            Assert.Equal("one", Name());
        }

        Assert.Equal(opens + 1 + 3, _db.GetPoolReport().Opens);
        Assert.Equal(600, scope.ReusedCalls);
        Assert.Equal(cells - 3, sweep.Cells);
    }
}
