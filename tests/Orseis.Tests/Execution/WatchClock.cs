using Microsoft.Extensions.Time.Testing;

namespace Orseis.Tests.Execution;

/// <summary>
/// A fake clock for <see cref="CallWatch"/> tests, with a <see cref="DeadlineSweep"/> of its own: time moves only when a
/// test advances it, so a grace or a deadline is reached at once and exactly, without sleeping. It counts the timers
/// created on it, because a watch arms its grace on a thread-pool thread after a stop: a test waits for that timer
/// (<see cref="WaitForTimersAsync"/>) before it advances the clock past the grace.
/// </summary>
internal sealed class WatchClock : FakeTimeProvider
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(10);

    private readonly SemaphoreSlim _created = new(0);
    private int _timers;

    public WatchClock() => Sweep = DeadlineSweep.For(this);

    /// <summary>The sweep of this clock, to start watches with.</summary>
    public DeadlineSweep Sweep { get; }

    /// <summary>How many timers were created on this clock: the sweep's one, and one per grace armed.</summary>
    public int Timers => Volatile.Read(ref _timers);

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        ITimer timer = base.CreateTimer(callback, state, dueTime, period);
        Interlocked.Increment(ref _timers);
        _created.Release();
        return timer;
    }

    /// <summary>
    /// Waits (bounded, in real time, without blocking a thread) until <paramref name="count"/> timers exist; false if they
    /// never do.
    /// </summary>
    public async Task<bool> WaitForTimersAsync(int count)
    {
        while (Timers < count)
        {
            if (!await _created.WaitAsync(Patience))
                return false;
        }

        return true;
    }
}
