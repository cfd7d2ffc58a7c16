namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Measures the thread pool's own latency: a dedicated thread (not a pool thread, so it keeps running while the pool
/// starves) queues one probe work item, once a second while the pool answers promptly and nothing waits in its queues
/// (<see cref="QuietInterval"/>) and every <see cref="Interval"/> otherwise, and every <see cref="Interval"/>, while the
/// probe has not run, tells every subscribed detector how long it has waited (and, once, how long it waited when it ran).
/// Whatever blocks pool threads (synchronous I/O, <c>.Result</c> on a task, <c>Thread.Sleep</c>) shows as a probe that
/// waits; so does a saturated CPU, which is why the runtime's own thread injections for starvation
/// (<see cref="RuntimeThreadInjections"/>) are read beside it. One per process, running only while a detector subscribes.
/// </summary>
internal static class ThreadPoolProbe
{
    public static readonly TimeSpan Interval = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// How often a probe is queued while the last one ran within <see cref="Prompt"/>. Each probe wakes pool threads that
    /// then spin for more work before they sleep again (measured: about 0.6 ms of CPU and 130 context switches per probe
    /// on an idle 2-core machine), so an idle, healthy pool is probed once a second, not ten times. Work waiting in the
    /// queues at a tick overrides it (a busy pool's threads are awake anyway).
    /// </summary>
    public static readonly TimeSpan QuietInterval = TimeSpan.FromSeconds(1);

    /// <summary>A probe that ran within this is prompt; a slower one brings the next probe at the next tick.</summary>
    public static readonly TimeSpan Prompt = TimeSpan.FromMilliseconds(20);
    private static readonly Lock Sync = new();
    private static readonly List<ThreadPoolStarvationDetector> Subscribers = [];
    private static readonly ProbeState State = new(TimeProvider.System);
    private static Thread? _thread;
    private static RuntimeThreadInjections? _runtime;

    /// <summary>
    /// How late the thread pool ran work within the last <paramref name="window"/>: the longest wait of a probe that ran in
    /// it, or of the probe still waiting; zero when no probe runs. Lets other detectors blame starvation, not the database,
    /// for a slow open that overlapped it (the window is the open's duration), even if the pool recovered before it ended.
    /// </summary>
    public static TimeSpan DelayWithin(TimeSpan window) => _thread is null ? TimeSpan.Zero : State.DelayWithin(window);

    /// <summary>Whether the probe runs (a starvation detector subscribes): <see cref="BlockingCalls"/> counts only then.</summary>
    public static bool Running => Volatile.Read(ref _thread) is not null;

    public static void Subscribe(ThreadPoolStarvationDetector detector)
    {
        lock (Sync)
        {
            Subscribers.Add(detector);
            if (_thread is null)
            {
                _runtime ??= new RuntimeThreadInjections();
                _thread = new Thread(Run) { IsBackground = true, Name = "Orseis thread-pool probe" };
                _thread.UnsafeStart();
            }
        }
    }

    public static void Unsubscribe(ThreadPoolStarvationDetector detector)
    {
        lock (Sync)
            Subscribers.Remove(detector);
    }

    private static void Run()
    {
        State.TakeRan(); // one that ran before this thread started was judged, if at all, by the detectors of then
        while (true)
        {
            Thread.Sleep(Interval);
            ThreadPoolStarvationDetector[] subscribers;
            lock (Sync)
            {
                if (Subscribers.Count == 0)
                {
                    _thread = null;
                    return;
                }

                subscribers = [.. Subscribers];
            }

            TimeSpan? ran = State.TakeRan();
            bool workQueued = ThreadPool.PendingWorkItemCount > 0;
            TimeSpan backlog = State.Backlog(workQueued);
            TimeSpan? waiting = State.Tick(
                static state => ThreadPool.UnsafeQueueUserWorkItem(static s => ((ProbeState)s!).Ran(), state), workQueued);
            long injected = _runtime?.Last ?? 0;
            bool runtimeSaysStarved = injected != 0 && TimeProvider.System.GetElapsedTime(injected) < TimeSpan.FromSeconds(2);
            TimeSpan delay = waiting ?? ran ?? TimeSpan.Zero;
            var pool = PoolThreads.Now(_runtime?.Goal ?? 0, BlockingCalls.Current, backlog);
            foreach (ThreadPoolStarvationDetector detector in subscribers)
                detector.OnProbe(delay, stillWaiting: waiting is not null, runtimeSaysStarved, justRan: ran is not null, pool);
        }
    }

    /// <summary>The probe's state, apart from the thread, so its logic is tested with a fake clock.</summary>
    internal sealed class ProbeState(TimeProvider time)
    {
        private long _queuedAt;
        private long _lastQueuedAt;
        private long _lastDelayTicks;
        private const int Kept = 256;
        private readonly long[] _ranAt = new long[Kept];
        private readonly long[] _delays = new long[Kept];
        private int _next;
        private long _runs;
        private long _taken;
        private long _backlogSince;

        /// <summary>How long the last probe waited before it ran.</summary>
        public TimeSpan LastDelay => TimeSpan.FromTicks(Volatile.Read(ref _lastDelayTicks));

        /// <summary>
        /// The longest wait of the probes that ran within the last <paramref name="window"/> (the last <see cref="Kept"/> are
        /// kept: 25 s of probes at every tick) and of the probe out now.
        /// </summary>
        public TimeSpan DelayWithin(TimeSpan window)
        {
            long since = time.GetTimestamp() - (long)(window.TotalSeconds * time.TimestampFrequency);
            long queuedAt = Volatile.Read(ref _queuedAt);
            long longest = queuedAt != 0 ? time.GetElapsedTime(queuedAt).Ticks : 0;
            for (int i = 0; i < Kept; i++)
            {
                // A slot may be read half rewritten by the probe thread: at worst one probe is misjudged, by one tick.
                if (Volatile.Read(ref _ranAt[i]) >= since && Volatile.Read(ref _delays[i]) is var delay && delay > longest)
                    longest = delay;
            }

            return TimeSpan.FromTicks(longest);
        }

        /// <summary>How many probes have run.</summary>
        public long Runs => Volatile.Read(ref _runs);

        /// <summary>
        /// How long the probe that ran since the last call waited, or null: each run is given once. Called by the probe
        /// thread before <see cref="Tick"/>, when no probe can be out unless the last tick queued it, so the run it reads
        /// cannot change under it.
        /// </summary>
        public TimeSpan? TakeRan()
        {
            if (Volatile.Read(ref _queuedAt) != 0)
                return null; // out, so the last run was taken when this one was queued
            long runs = Runs; // none out: nothing runs until the next tick queues one
            if (runs == _taken)
                return null;
            _taken = runs;
            return LastDelay;
        }

        /// <summary>
        /// Returns how long the probe out has waited; with none out, returns null and queues one, unless the last one ran
        /// promptly, was queued less than <see cref="QuietInterval"/> ago (the half tick absorbs the sleep's jitter) and no
        /// work waits in the pool's queues now (<paramref name="workQueued"/>). Queued work may be the start of starvation:
        /// a probe sent then waits as long as that work does, where one sent a second later may find the pool recovered.
        /// </summary>
        public TimeSpan? Tick(Action<ProbeState> queue, bool workQueued = false)
        {
            long queuedAt = Volatile.Read(ref _queuedAt);
            if (queuedAt != 0)
                return time.GetElapsedTime(queuedAt);
            bool quiet = !workQueued && _lastQueuedAt != 0 && LastDelay < Prompt;
            if (quiet && time.GetElapsedTime(_lastQueuedAt) + (Interval / 2) < QuietInterval)
                return null;
            _lastQueuedAt = time.GetTimestamp();
            Volatile.Write(ref _queuedAt, _lastQueuedAt);
            queue(this);
            return null;
        }

        /// <summary>
        /// How long work has been waiting in the pool's queues at every tick, without a tick that found them empty (zero
        /// when none waits now). The probe cannot see this wait when the work was queued from pool threads: it sits in
        /// their own queues, which threads serve after the global queue the probe goes to.
        /// </summary>
        public TimeSpan Backlog(bool workQueued)
        {
            if (!workQueued)
            {
                _backlogSince = 0;
                return TimeSpan.Zero;
            }

            if (_backlogSince == 0)
                _backlogSince = time.GetTimestamp();
            return time.GetElapsedTime(_backlogSince);
        }

        /// <summary>The probe ran.</summary>
        public void Ran()
        {
            long queuedAt = Interlocked.Exchange(ref _queuedAt, 0);
            if (queuedAt == 0)
                return;
            long now = time.GetTimestamp();
            long delay = time.GetElapsedTime(queuedAt, now).Ticks;
            Volatile.Write(ref _lastDelayTicks, delay);
            int slot = _next; // one probe is out at a time: no two Ran() race
            _next = (slot + 1) % Kept;
            Volatile.Write(ref _delays[slot], delay);
            Volatile.Write(ref _ranAt[slot], now);
            Interlocked.Increment(ref _runs);
        }
    }
}
