namespace Orseis.Diagnostics;

/// <summary>
/// The facts of a pool's calls for the observers that learn off the call (<see cref="PoolObserver.LearnsOffTheCall"/>):
/// a call writes each fact into a bounded lock-free ring (a slot claimed by compare-and-swap, the fact copied in, the
/// slot published) and returns; the observers hear the facts later, in the order the calls published them, one drain at
/// a time under a lock: <see cref="DrainPeriod"/> after the first fact a drain has not taken, whenever a quarter of the
/// ring has filled (on the thread pool), before a report, and at once after a failed open (the failure path can afford
/// it, and a pool timeout is told while its callers wait). A call that finds the ring full drains it itself. So the time
/// to detect of what these observers find grows by at most <see cref="DrainPeriod"/>, and the call pays a copy instead
/// of their work. Each fact keeps its own timestamps; an observer that reads the clock hears it at the drain's time.
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage(
    "Design", "CA1031:Do not catch general exception types", Justification = "Diagnostics must not change what the query does.")]
internal sealed class FactQueue : IDisposable, IThreadPoolWorkItem
{
    /// <summary>How long a fact may wait for its observers at most while calls are quiet.</summary>
    public static readonly TimeSpan DrainPeriod = TimeSpan.FromMilliseconds(100);

    private const int Size = 512; // a power of two
    private const int KickEvery = Size / 4;

    private readonly PoolObservers.Steps _observers;
    private Slot[]? _slots; // made by the first fact: a pool whose detectors are off never queues one
    private readonly Lock _drain = new();
    private long _tail;
    private long _head;
    private int _armed;
    private readonly ITimer _timer;

    public FactQueue(PoolObservers.Steps observers, TimeProvider time)
    {
        _observers = observers;
        OpenStarting = observers.OpenStarting.Length != 0;
        OpenCompleted = observers.OpenCompleted.Length != 0;
        OpenFailed = observers.OpenFailed.Length != 0;
        Released = observers.Released.Length != 0;
        // Its callbacks run in no caller's context (a drain's findings belong to no call's span).
        AsyncFlowControl? suppressed = ExecutionContext.IsFlowSuppressed() ? null : ExecutionContext.SuppressFlow();
        try
        {
            _timer = time.CreateTimer(static q => ((FactQueue)q!).Timed(), this, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
        }
        finally
        {
            suppressed?.Undo();
        }
    }

    private enum Kind
    {
        OpenStarting,
        OpenCompleted,
        OpenFailed,
        Released,
    }

    /// <summary>Whether an observer off the call hears open starts.</summary>
    public bool OpenStarting { get; }

    /// <summary>Whether one hears completed opens.</summary>
    public bool OpenCompleted { get; }

    /// <summary>Whether one hears failed opens.</summary>
    public bool OpenFailed { get; }

    /// <summary>Whether one hears releases.</summary>
    public bool Released { get; }

    public void Add(in OpenStart start)
    {
        ref Slot slot = ref ClaimOrWait(out long at);
        slot.Kind = Kind.OpenStarting;
        slot.Open = new CompletedOpen(start, default, 0, false, default);
        Publish(ref slot, at);
    }

    public void Add(in CompletedOpen open)
    {
        ref Slot slot = ref ClaimOrWait(out long at);
        slot.Kind = Kind.OpenCompleted;
        slot.Open = open;
        Publish(ref slot, at);
    }

    /// <summary>A failed open: queued behind the facts before it, then drained at once.</summary>
    public void Add(in FailedOpen open)
    {
        ref Slot slot = ref ClaimOrWait(out long at);
        slot.Kind = Kind.OpenFailed;
        slot.Open = new CompletedOpen(open.Start, default, 0, false, default);
        slot.Failure = open.Failure;
        slot.Exhausted = open.Exhausted;
        Publish(ref slot, at);
        Drain();
    }

    public void Add(in Release release)
    {
        ref Slot slot = ref ClaimOrWait(out long at);
        slot.Kind = Kind.Released;
        slot.Release = release;
        Publish(ref slot, at);
    }

    /// <summary>Tells the observers every fact published so far, in order (a report, a timer, a failure).</summary>
    public void Drain()
    {
        lock (_drain)
            DrainHeld();
    }

    public void Dispose()
    {
        _timer.Dispose();
        Drain();
    }

    /// <summary>
    /// The next slot. When the ring is full, this caller drains it (under the drain's lock) until there is room: nothing is
    /// dropped, and each thread's facts stay in the order it wrote them (a fact is never told ahead of the queue).
    /// </summary>
    private ref Slot ClaimOrWait(out long at)
    {
        if (Claim(out at) is { } ring)
            return ref ring[at & (Size - 1)];
        lock (_drain)
        {
            var spin = default(SpinWait);
            while (true)
            {
                DrainHeld();
                if (Claim(out at) is { } room)
                    return ref room[at & (Size - 1)];
                spin.SpinOnce(); // a fact claimed and not yet published holds the drain back
            }
        }
    }

    /// <summary>Claims the next slot; null when the ring is full.</summary>
    private Slot[]? Claim(out long at)
    {
        Slot[] ring = Volatile.Read(ref _slots) ?? Ring();
        long tail = Volatile.Read(ref _tail);
        while (true)
        {
            long sequence = Volatile.Read(ref ring[tail & (Size - 1)].Sequence);
            if (sequence == tail)
            {
                long seen = Interlocked.CompareExchange(ref _tail, tail + 1, tail);
                if (seen == tail)
                {
                    at = tail;
                    return ring;
                }

                tail = seen;
            }
            else if (sequence < tail)
            {
                at = 0;
                return null; // full: the slot still holds a fact from a lap ago
            }
            else
            {
                tail = Volatile.Read(ref _tail);
            }
        }
    }

    /// <summary>The ring, made on the first fact (each slot free for the first lap: its sequence is its index).</summary>
    private Slot[] Ring()
    {
        var ring = new Slot[Size];
        for (int i = 0; i < Size; i++)
            ring[i].Sequence = i;
        return Interlocked.CompareExchange(ref _slots, ring, null) ?? ring;
    }

    /// <summary>Makes the slot's fact visible to a drain, and sees that one will come.</summary>
    private void Publish(ref Slot slot, long at)
    {
        Volatile.Write(ref slot.Sequence, at + 1);
        if ((at & (KickEvery - 1)) == KickEvery - 1)
            ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false); // the queue itself: nothing allocated
        if (Volatile.Read(ref _armed) == 0)
            Arm(); // also after a kick: a drain already under way may have passed this fact
    }

    private void Arm()
    {
        if (Interlocked.Exchange(ref _armed, 1) != 0)
            return;
        try
        {
            _timer.Change(DrainPeriod, Timeout.InfiniteTimeSpan); // false once disposed: the pool's end drained it
        }
        catch (Exception)
        {
            Volatile.Write(ref _armed, 0);
        }
    }

    private void Timed()
    {
        Volatile.Write(ref _armed, 0); // before the drain: a fact published after this arms the timer again
        Drain();
    }

    /// <summary>A kick: a quarter of the ring filled (on the thread pool; skipped while a drain runs, which takes them).</summary>
    void IThreadPoolWorkItem.Execute() => TryDrain();

    private void TryDrain()
    {
        if (_drain.TryEnter())
        {
            try
            {
                DrainHeld();
            }
            finally
            {
                _drain.Exit();
            }
        }
    }

    private void DrainHeld()
    {
        if (Volatile.Read(ref _slots) is not { } ring)
            return;
        long head = _head;
        while (true)
        {
            ref Slot slot = ref ring[head & (Size - 1)];
            if (Volatile.Read(ref slot.Sequence) != head + 1)
                break; // not published yet (or nothing more)
            Tell(slot);
            slot.Open = default;
            slot.Release = default;
            slot.Failure = default;
            slot.Exhausted = null;
            head++;
            Volatile.Write(ref slot.Sequence, head + Size - 1);
        }

        _head = head;
    }

    /// <summary>
    /// Tells <paramref name="slot"/>'s fact to each observer off the call that hears it, on the fact's clock; one that throws
    /// ends only its own.
    /// </summary>
    private void Tell(in Slot slot)
    {
        DrainClock.At(slot.Kind switch
        {
            Kind.OpenStarting => slot.Open.Start.Started,
            Kind.OpenCompleted => slot.Open.At,
            Kind.Released => slot.Release.At,
            _ => 0, // a failure is told at once: the clock's own time is its time
        });
        try
        {
            TellEach(slot);
        }
        finally
        {
            DrainClock.At(0);
        }
    }

    private void TellEach(in Slot slot)
    {
        PoolObserver[] observers = slot.Kind switch
        {
            Kind.OpenStarting => _observers.OpenStarting,
            Kind.OpenCompleted => _observers.OpenCompleted,
            Kind.OpenFailed => _observers.OpenFailed,
            _ => _observers.Released,
        };
        foreach (PoolObserver observer in observers)
        {
            try
            {
                switch (slot.Kind)
                {
                    case Kind.OpenStarting:
                        observer.OnOpenStarting(slot.Open.Start);
                        break;
                    case Kind.OpenCompleted:
                        observer.OnOpenCompleted(slot.Open);
                        break;
                    case Kind.OpenFailed:
                        observer.OnOpenFailed(new FailedOpen(slot.Open.Start, slot.Failure, slot.Exhausted));
                        break;
                    default:
                        observer.OnReleased(slot.Release);
                        break;
                }
            }
            catch (Exception)
            {
            }
        }
    }

    /// <summary>
    /// The clock of the observers off the call: on the thread of a drain, while it tells a fact, the fact's own time (an
    /// observer that reads the clock then reads it as it would have on the call); anywhere else the pool's clock.
    /// </summary>
    internal sealed class DrainClock(TimeProvider pool) : TimeProvider
    {
        [ThreadStatic]
        private static long _now;

        public override long TimestampFrequency => pool.TimestampFrequency;

        public override TimeZoneInfo LocalTimeZone => pool.LocalTimeZone;

        public override long GetTimestamp() => _now != 0 ? _now : pool.GetTimestamp();

        public override DateTimeOffset GetUtcNow() => pool.GetUtcNow();

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period) =>
            pool.CreateTimer(callback, state, dueTime, period);

        /// <summary>Reads as <paramref name="timestamp"/> on this thread until set to 0 (the pool's clock again).</summary>
        internal static void At(long timestamp) => _now = timestamp;
    }

    /// <summary>
    /// One fact: <see cref="Sequence"/> is the slot's place in the ring (its index while free for the producer of that lap,
    /// one past it once published). An open start or a failed open keeps its start in <see cref="Open"/>.
    /// </summary>
    private struct Slot
    {
        public long Sequence;
        public Kind Kind;
        public CompletedOpen Open;
        public Release Release;
        public OpenFailure Failure;
        public PoolExhaustedException? Exhausted;
    }
}
