namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// How many Orseis calls are blocking thread-pool threads right now, process-wide: synchronous calls, and async calls
/// through a provider whose async methods run synchronously (MySql.Data), made on a pool thread. It is the starvation
/// detector's own evidence: a probe that waits while most pool threads sit inside such calls is starvation caused by
/// blocking database calls, even when the runtime adds no thread for it (hill climbing sees completions and holds the
/// pool at a few threads). Counted only while the thread-pool probe runs.
/// </summary>
internal static class BlockingCalls
{
    private static int _count;

    /// <summary>The blocking calls in flight now.</summary>
    public static int Current => Volatile.Read(ref _count);

    /// <summary>
    /// Starts counting a call that blocks its thread for as long as it runs; false (nothing counted) when it does not block
    /// a pool thread or the probe is not running. End a counted call with <see cref="Exit"/>.
    /// </summary>
    public static bool Enter(bool blocks)
    {
        if (!blocks || !ThreadPoolProbe.Running || !Thread.CurrentThread.IsThreadPoolThread)
            return false;
        Interlocked.Increment(ref _count);
        return true;
    }

    public static void Exit() => Interlocked.Decrement(ref _count);

    /// <summary>Whether most of the pool's threads are blocked in Orseis calls: more than half of them.</summary>
    public static bool HoldMostOf(int threads, int blocked) => blocked > 0 && blocked * 2 > threads;

    /// <summary>
    /// How many of the threads the pool runs work on without waiting may be outside Orseis calls while those still starve
    /// it: one between two calls (it left one and is about to take the next queued one; the count is not read atomically
    /// with the pool's), and two that the host holds blocked for good (a .NET test host holds two: vstest's message loop
    /// and xunit's runner). A minimum raised past the blocking callers, as a worker designed for them does
    /// (<c>SetMinThreads(callers + 4)</c>), leaves more free than that.
    /// </summary>
    public const int OutsideWhileStarved = 3;

    /// <summary>
    /// Whether the blocked calls leave the pool no thread to start at once: at most <see cref="OutsideWhileStarved"/> of
    /// the <paramref name="allowed"/> threads it runs work on without waiting for the runtime
    /// (<see cref="PoolThreads.AllowedThreads"/>) outside them. With more free, queued work gets a thread at once (the
    /// pool starts one if none is idle), and a probe that still runs late waited for a CPU: 200 blocked threads and a CPU
    /// hog on two cores delay it as long as starvation would.
    /// </summary>
    public static bool LeaveNoRoom(int allowed, int blocked) => blocked > 0 && allowed - blocked <= OutsideWhileStarved;
}
