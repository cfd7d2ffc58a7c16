using System.Collections.Concurrent;

namespace Orseis.Execution;

/// <summary>
/// The one timer that gives parked connections back to the pool (<see cref="ScopeSlot"/>): a slot that parks a connection
/// joins a queue once, and the timer, running only while the queue holds something, looks at each queued slot every
/// <see cref="Period"/> and closes the connections whose idle window has passed, counted in sweeps (<see cref="Tick"/>),
/// so parking reads no clock. No timer per call or per scope.
/// </summary>
/// <remarks>
/// Every database on the system clock shares <see cref="System"/>; a database given another clock (a test's fake one)
/// gets a sweep of its own (<see cref="For"/>). A connection goes back between the window and the window plus a period
/// after its last call, later when the timer is late (a starved thread pool), never sooner.
/// </remarks>
internal sealed class ParkSweep
{
    private readonly ConcurrentQueue<ScopeSlot> _queue = new();
    private readonly Lock _starting = new();
    private ITimer? _timer;
    private int _armed;
    private int _sweeping;
    private long _tick;

    private ParkSweep(TimeProvider time) => Time = time;

    /// <summary>The sweep of <see cref="TimeProvider.System"/>.</summary>
    public static ParkSweep System { get; } = new(TimeProvider.System);

    /// <summary>How often queued slots are looked at while any is queued: a millisecond, the finest a timer here fires.</summary>
    public static TimeSpan Period { get; } = TimeSpan.FromMilliseconds(1);

    public TimeProvider Time { get; }

    /// <summary>
    /// The sweeps made so far: a clock for idle windows that costs a parking call no clock read. It stands still while the
    /// timer sleeps, so a connection parked then is given back no sooner than one parked while it runs.
    /// </summary>
    public long Tick => Volatile.Read(ref _tick);

    /// <summary>The sweeps that must pass over a connection parked for <paramref name="window"/> before it is due.</summary>
    public static long WindowTicks(TimeSpan window) => Math.Max(1, (long)Math.Ceiling(window / Period));

    /// <summary>The sweep for <paramref name="time"/>: the shared <see cref="System"/> one, or a new one for any other clock.</summary>
    public static ParkSweep For(TimeProvider time) => time == TimeProvider.System ? System : new ParkSweep(time);

    /// <summary>Queues <paramref name="slot"/>, which just parked a connection and was not queued; starts the timer if it sleeps.</summary>
    public void Enqueue(ScopeSlot slot)
    {
        _queue.Enqueue(slot);
        if (Volatile.Read(ref _armed) == 0 && Interlocked.CompareExchange(ref _armed, 1, 0) == 0)
            Arm(Period);
    }

    private void Arm(TimeSpan period)
    {
        if (Volatile.Read(ref _timer) is { } timer)
        {
            timer.Change(period, period);
            return;
        }

        lock (_starting)
            _timer ??= Time.CreateTimer(static state => ((ParkSweep)state!).Sweep(), this, period, period);
    }

    /// <summary>One look at every queued slot: due connections are closed, slots still parked stay queued, the rest leave.</summary>
    internal void Sweep()
    {
        if (Interlocked.Exchange(ref _sweeping, 1) != 0)
            return; // the previous tick is still closing connections
        try
        {
            long tick = Interlocked.Increment(ref _tick);
            for (int n = _queue.Count; n > 0 && _queue.TryDequeue(out ScopeSlot? slot); n--)
            {
                if (slot.Sweep(tick))
                    _queue.Enqueue(slot);
            }
        }
        finally
        {
            Volatile.Write(ref _sweeping, 0);
        }

        if (!_queue.IsEmpty)
            return;

        // Sleep, unless a slot was queued meanwhile: a slot queued after _armed reads 0 arms the timer itself.
        _timer!.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
        Volatile.Write(ref _armed, 0);
        if (!_queue.IsEmpty && Interlocked.CompareExchange(ref _armed, 1, 0) == 0)
            Arm(Period);
    }
}
