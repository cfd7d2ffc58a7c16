using System.Collections.Concurrent;
using System.Runtime.CompilerServices;

namespace Orseis.Execution.Scopes;

/// <summary>
/// The one sweep that gives parked connections back to the pool (<see cref="ScopeSlot"/>): a slot that parks a connection
/// joins a queue once, and the sweep, running only while the queue holds something, looks at each queued slot once per
/// idle window (<see cref="Period"/>) and closes the connections parked since before the previous look: parked for at
/// least a window, counted in sweeps (<see cref="Tick"/>), so parking reads no clock. No timer per call or per scope.
/// </summary>
/// <remarks>
/// <para>
/// Databases on the system clock share one sweep per idle window (<see cref="For"/>); a database given another clock (a
/// test's fake one) gets a sweep of its own. A connection goes back between one and two windows after its last call,
/// later when the sweep is late (a machine out of CPU), never sooner.
/// </para>
/// <para>
/// A slot joins the queue through its thread's cell (<see cref="Register"/>): one reference per thread, which the next sweep
/// empties, moving the slot into the queue when a connection is still parked in it. Most scopes (a request's, a job's) park
/// and end between two sweeps: each takes the place of the thread's last one in the cell, and never reaches the queue, its
/// lock, or the sweep's look (which, with a slot per scope queued, kept every scope of the window alive until it ran).
/// </para>
/// </remarks>
[System.Diagnostics.CodeAnalysis.SuppressMessage(
    "Design", "CA1001:Types that own disposable fields should be disposable",
    Justification = "A sweep of the system clock lives as long as the process, with its thread; the others never use the semaphore.")]
internal sealed class ParkSweep
{
    private readonly Lock _queueLock = new();
    private List<ScopeSlot> _queue = [];
    private List<ScopeSlot> _spare = []; // the list a sweep works on; two lists, so a steady load allocates nothing
    private readonly Lock _starting = new();
    private Cell[] _cells = []; // the threads' cells, copied on write under _starting: the sweep reads them without a lock
    private readonly SemaphoreSlim _wake = new(0, int.MaxValue);
    private ITimer? _timer;
    private Thread? _thread;
    private int _armed;
    private int _sweeping;
    private long _tick;

    /// <summary>This thread's cell, in the sweep of the first slot it registered (another sweep's slots go to its queue).</summary>
    [ThreadStatic]
    private static Cell? _threadCell;

    /// <summary>The system clock's sweep of the first idle window asked for: the one most processes ever use.</summary>
    private static ParkSweep? _firstSystemSweep;

    /// <summary>
    /// The system clock's sweeps of the other windows, made when a second window is first asked for: a dictionary keyed
    /// by a struct is code the JIT compiles for it, which a process with one window would pay for at its first database.
    /// </summary>
    private static ConcurrentDictionary<TimeSpan, ParkSweep>? _otherSystemSweeps;

    private ParkSweep(TimeProvider time, TimeSpan window)
    {
        Time = time;
        Period = window;
    }

    /// <summary>
    /// How often queued slots are looked at while any is queued: the idle window itself, so a scope busy with back-to-back
    /// calls costs one timer tick per window (500 a second with the default 2 ms), and a long window almost none.
    /// </summary>
    public TimeSpan Period { get; }

    public TimeProvider Time { get; }

    /// <summary>
    /// The sweeps made so far: a clock for idle windows that costs a parking call no clock read. It stands still while the
    /// timer sleeps, so a connection parked then is given back no sooner than one parked while it runs.
    /// </summary>
    public long Tick => Volatile.Read(ref _tick);

    /// <summary>The threads' cells kept now (those of threads that ended are dropped every 256 sweeps): for tests.</summary>
    internal int Cells => Volatile.Read(ref _cells).Length;

    /// <summary>
    /// The sweep of connections parked for <paramref name="window"/> on <paramref name="time"/>: one per window on the system
    /// clock, shared by every database with that window; a new one for any other clock (a test's fake one).
    /// </summary>
    public static ParkSweep For(TimeProvider time, TimeSpan window)
    {
        if (time != TimeProvider.System)
            return new ParkSweep(time, window);
        ParkSweep first = Volatile.Read(ref _firstSystemSweep) ?? FirstSystemSweep(window);
        if (first.Period == window)
            return first;
        ConcurrentDictionary<TimeSpan, ParkSweep> others = Volatile.Read(ref _otherSystemSweeps) ?? OtherSystemSweeps();
        return others.GetOrAdd(window, static w => new ParkSweep(TimeProvider.System, w));
    }

    /// <summary>Makes the first window's sweep; when threads race, the first one stored is every thread's.</summary>
    private static ParkSweep FirstSystemSweep(TimeSpan window)
    {
        var made = new ParkSweep(TimeProvider.System, window); // a loser's is dropped before it ever runs: no thread, no timer
        return Interlocked.CompareExchange(ref _firstSystemSweep, made, null) ?? made;
    }

    private static ConcurrentDictionary<TimeSpan, ParkSweep> OtherSystemSweeps()
    {
        var made = new ConcurrentDictionary<TimeSpan, ParkSweep>();
        return Interlocked.CompareExchange(ref _otherSystemSweeps, made, null) ?? made;
    }

    /// <summary>
    /// Puts <paramref name="slot"/>, which just parked a connection and is not where the sweep looks, in this thread's cell
    /// (the slot it displaces goes to the queue if a connection is still parked in it), or in the queue when the thread's cell
    /// is another sweep's; starts the sweep if it sleeps.
    /// </summary>
    public void Register(ScopeSlot slot)
    {
        Cell cell = _threadCell ?? NewCell();
        if (!ReferenceEquals(cell.Sweep, this))
        {
            if (slot.TryQueue(ScopeSlot.InQueue))
                Enqueue(slot);
            return;
        }

        if (!slot.TryQueue(ScopeSlot.InCell))
            return;
        // A full fence: a sweep going to sleep reads the cells after clearing _armed (see Pending).
        if (Interlocked.Exchange(ref cell.Slot, slot) is { } displaced && Unsafe.As<ScopeSlot>(displaced).LeftCell())
            Enqueue(Unsafe.As<ScopeSlot>(displaced));
        Arm();
    }

    private Cell NewCell()
    {
        var cell = new Cell(this);
        lock (_starting)
            _cells = [.. _cells, cell];
        _threadCell = cell;
        return cell;
    }

    /// <summary>Queues <paramref name="slot"/>, marked <see cref="ScopeSlot.InQueue"/>; starts the sweep if it sleeps.</summary>
    private void Enqueue(ScopeSlot slot)
    {
        lock (_queueLock)
            _queue.Add(slot);
        Arm();
    }

    private void Arm()
    {
        if (Volatile.Read(ref _armed) == 0 && Interlocked.CompareExchange(ref _armed, 1, 0) == 0)
            Arm(Period);
    }

    /// <summary>Takes the slots out of the threads' cells: those with a connection parked join <paramref name="batch"/>.</summary>
    private void TakeCells(List<ScopeSlot> batch, long tick)
    {
        Cell[] cells = Volatile.Read(ref _cells);
        bool deadOwner = false;
        foreach (Cell cell in cells)
        {
            if (Volatile.Read(ref cell.Slot) is { } slot && Interlocked.CompareExchange(ref cell.Slot, null, slot) == slot &&
                Unsafe.As<ScopeSlot>(slot).LeftCell())
            {
                batch.Add(Unsafe.As<ScopeSlot>(slot));
            }

            // Now and then, the cells of threads that ended (empty now: a thread that ended registers nothing) are dropped.
            if ((tick & 255) == 0 && !cell.Owner.IsAlive)
                deadOwner = true;
        }

        if (deadOwner)
        {
            lock (_starting)
                _cells = [.. _cells.Where(c => c.Owner.IsAlive || Volatile.Read(ref c.Slot) is not null)];
        }
    }

    /// <summary>Whether anything waits for a sweep: a slot queued, or in a thread's cell.</summary>
    private bool Pending()
    {
        lock (_queueLock)
        {
            if (_queue.Count != 0)
                return true;
        }

        foreach (Cell cell in Volatile.Read(ref _cells))
        {
            if (Volatile.Read(ref cell.Slot) is not null)
                return true;
        }

        return false;
    }

    private void Arm(TimeSpan period)
    {
        if (Time == TimeProvider.System)
        {
            WakeThread();
            return;
        }

        if (Volatile.Read(ref _timer) is { } timer)
        {
            timer.Change(period, period);
            return;
        }

        lock (_starting)
        {
            // Created without the first parking caller's execution context, which would keep its scope alive with the timer.
            AsyncFlowControl? flow = ExecutionContext.IsFlowSuppressed() ? null : ExecutionContext.SuppressFlow();
            try
            {
                _timer ??= Time.CreateTimer(static state => ((ParkSweep)state!).Sweep(), this, period, period);
            }
            finally
            {
                flow?.Undo();
            }
        }
    }

    /// <summary>
    /// On the system clock, a thread of the sweep's own sleeps for the period between sweeps: the runtime's timers tick at
    /// the kernel's timer interrupt (every 4 ms with HZ=250), which would make a 2 ms window 8; a thread's sleep is a
    /// high-resolution one (2.1 ms for 2 ms here). It waits, using no CPU, while nothing is parked.
    /// </summary>
    private void WakeThread()
    {
        if (Volatile.Read(ref _thread) is null)
        {
            lock (_starting)
            {
                if (_thread is null)
                {
                    var thread = new Thread(RunThread) { IsBackground = true, Name = "Orseis scope sweep" };
                    thread.UnsafeStart(); // no caller's execution context: it would live as long as the thread
                    _thread = thread;
                }
            }
        }

        _wake.Release();
    }

    private void RunThread()
    {
        int sleep = Math.Max(1, (int)Math.Ceiling(Period.TotalMilliseconds));
        while (true)
        {
            _wake.Wait();
            do
            {
                Thread.Sleep(sleep);
            }
            while (SweepOnce());
        }
    }

    /// <summary>A tick of the timer (any clock but the system's): one sweep, and the timer stops when nothing is queued.</summary>
    internal void Sweep()
    {
        if (SweepOnce())
            return;

        // Nothing queued: stop, unless a slot came meanwhile (one registered after _armed reads 0 arms the timer itself).
        _timer!.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
        Interlocked.Exchange(ref _armed, 0);
        if (Pending() && Interlocked.CompareExchange(ref _armed, 1, 0) == 0)
            Arm(Period);
    }

    /// <summary>
    /// One look at every queued slot: due connections are closed, slots still parked stay queued, the rest leave. Returns
    /// whether to go on sweeping: something is still queued. On the system clock, a false return also disarms the sweep,
    /// unless a slot came meanwhile (then true).
    /// </summary>
    private bool SweepOnce()
    {
        if (Interlocked.Exchange(ref _sweeping, 1) != 0)
            return true; // the previous tick is still closing connections
        bool empty;
        try
        {
            long tick = Interlocked.Increment(ref _tick);
            List<ScopeSlot> batch;
            lock (_queueLock)
                (batch, _queue, _spare) = (_queue, _spare, null!);
            TakeCells(batch, tick);
            int kept = 0;
            for (int i = 0; i < batch.Count; i++)
            {
                if (batch[i].Sweep(tick))
                    batch[kept++] = batch[i];
            }

            batch.RemoveRange(kept, batch.Count - kept);
            lock (_queueLock)
            {
                _queue.AddRange(batch);
                batch.Clear();
                _spare = batch;
            }

            empty = !Pending();
        }
        finally
        {
            Volatile.Write(ref _sweeping, 0);
        }

        if (!empty)
            return true;
        if (Time != TimeProvider.System)
            return false;

        // The thread waits again, unless a slot was registered meanwhile (one registered after _armed reads 0 wakes it itself).
        Interlocked.Exchange(ref _armed, 0);
        return Pending() && Interlocked.CompareExchange(ref _armed, 1, 0) == 0;
    }

    /// <summary>
    /// A thread's cell: the last slot the thread registered, until the next sweep takes it out. Written by its thread (an
    /// exchange) and emptied by the sweep (a compare-exchange).
    /// </summary>
    private sealed class Cell(ParkSweep sweep)
    {
        public readonly ParkSweep Sweep = sweep;
        public readonly Thread Owner = Thread.CurrentThread;

        /// <summary>
        /// Null or a <see cref="ScopeSlot"/>: typed object so the atomics on it are Interlocked's object overloads (as the
        /// slot's state is).
        /// </summary>
        public object? Slot;
    }
}
