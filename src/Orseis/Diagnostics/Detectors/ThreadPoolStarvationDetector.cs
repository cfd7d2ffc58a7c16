using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Thread-pool starvation, from the pool's own latency (<see cref="ThreadPoolProbe"/>): a probe work item that waited
/// longer than <see cref="DiagnosticsOptions.ThreadPoolDelayThreshold"/> to run while the runtime itself added threads
/// because of starvation or blocking within the last two seconds, or while most threads the pool let run work were
/// blocked inside Orseis calls and they left it no thread to start at once (<see cref="BlockingCalls"/>: the runtime
/// often adds no thread for plain blocking I/O, since completions keep coming). A saturated CPU delays the probe too, but
/// is neither, and is not starvation: blocked calls under a minimum raised past them (<c>SetMinThreads</c>) leave idle
/// threads, and a probe late then waited for a CPU. Sees any blocking the runtime answers, Orseis's or not.
/// While the pool starves, the next Orseis call made on a pool thread names its call site (the stack is read only then):
/// a synchronous call there is blocking I/O on a pool thread; an async one blocked on with <c>.Result</c> or
/// <c>.Wait()</c> is sync-over-async, unless the provider's async methods block anyway
/// (<paramref name="blockingAsyncProvider"/>, e.g. MySql.Data), which the finding then says. Reported once per episode
/// (the probe running again ends it). A pool's detector listens to the probe from <see cref="Subscribed"/> until disposed.
/// </summary>
internal sealed class ThreadPoolStarvationDetector(FindingLog log, string? blockingAsyncProvider = null) : PoolObserver, IDisposable
{
    private int _starving; // 0 no, 1 starving and not yet reported, 2 reported
    private double _delayMs;
    private long _since;
    private long _lastStarved;
    private PoolThreads _pool;
    private bool _orseisBlocked;
    private bool _waitedInQueues; // the episode's wait is the backlog of queued work, not the probe's

    /// <summary>When the pool was last seen starving (a timestamp of the log's clock), or 0 if never.</summary>
    public long LastStarved => Volatile.Read(ref _lastStarved);

    /// <summary>Whether an Orseis call should name its call site now (cheap to read on every open).</summary>
    public bool WantsCallSite => Volatile.Read(ref _starving) == 1;

    /// <summary>A detector that hears the process's <see cref="ThreadPoolProbe"/> until it is disposed.</summary>
    public static ThreadPoolStarvationDetector Subscribed(FindingLog log, string? blockingAsyncProvider)
    {
        var detector = new ThreadPoolStarvationDetector(log, blockingAsyncProvider);
        ThreadPoolProbe.Subscribe(detector);
        return detector;
    }

    public override HeardFacts Hears => HeardFacts.OpenStarting;

    public override void OnOpenStarting(in OpenStart start)
    {
        if (WantsCallSite && Thread.CurrentThread.IsThreadPoolThread)
            OnCallWhileStarving(start.Async);
    }

    public override void Describe(ReportFigures figures) => figures.LastStarved = LastStarved;

    public void Dispose() => ThreadPoolProbe.Unsubscribe(this);

    /// <summary>
    /// From the probe thread: how long the probe has waited, or, once it ran, how long it waited (<paramref name="justRan"/>
    /// on the first tick after it ran). An episode ends when the probe runs; one seen and not yet reported is reported then
    /// without a call site, and so is one whose probe ran before the runtime's injection confirmed it (starvation of about
    /// a second, which the runtime answers late).
    /// </summary>
    public void OnProbe(TimeSpan delay, bool stillWaiting, bool runtimeSaysStarved, bool justRan = false, PoolThreads pool = default)
    {
        // Blocked calls that leave the pool threads it may start at once are not what delays the probe: a saturated CPU is.
        bool orseisBlocked = BlockingCalls.HoldMostOf(pool.Threads, pool.BlockedInOrseis) &&
                             BlockingCalls.LeaveNoRoom(pool.AllowedOrRunning, pool.BlockedInOrseis);
        TimeSpan threshold = log.Options.ThreadPoolDelayThreshold;

        // Work queued from pool threads (Task.Run after an await) waits in their own queues, which the probe passes: it
        // runs at once while that work waits behind the blocked calls. Queues never empty for the threshold while most
        // running threads block in Orseis is the same starvation, and lasts while they stay so.
        bool backlogged = orseisBlocked && pool.Backlog >= threshold;
        bool starved = backlogged || delay >= threshold && (runtimeSaysStarved || orseisBlocked);
        if (starved)
        {
            _pool = pool;
            _orseisBlocked = orseisBlocked && !runtimeSaysStarved;
            _waitedInQueues = backlogged && pool.Backlog > delay;
        }

        if (backlogged && pool.Backlog > delay)
        {
            delay = pool.Backlog;
            stillWaiting = true;
        }

        if (!stillWaiting)
        {
            if (justRan && starved && Interlocked.CompareExchange(ref _starving, 1, 0) == 0)
                Seen(delay);
            Report(null, sync: false); // only if seen and no Orseis call named a site before the pool recovered
            Volatile.Write(ref _starving, 0);
            return;
        }

        if (!starved)
            return;
        long since = Seen(delay);
        if (Interlocked.CompareExchange(ref _starving, 1, 0) == 0)
            _since = since;
        else if (Volatile.Read(ref _starving) == 1 && log.Time.GetElapsedTime(_since) > log.Options.ThreadPoolDelayThreshold)
            Report(null, sync: false); // no Orseis call came on a pool thread meanwhile: report without a site
    }

    private long Seen(TimeSpan delay)
    {
        long now = log.Time.GetTimestamp();
        Volatile.Write(ref _delayMs, delay.TotalMilliseconds);
        Volatile.Write(ref _lastStarved, now);
        return now;
    }

    /// <summary>An Orseis call entered Open on a pool thread while <see cref="WantsCallSite"/>.</summary>
    public void OnCallWhileStarving(bool async) => Report(CallSites.Caller(), sync: !async);

    private void Report(string? site, bool sync)
    {
        if (Interlocked.CompareExchange(ref _starving, 2, 1) != 1)
            return;
        ThreadPool.GetMinThreads(out int minThreads, out _);
        CultureInfo c = CultureInfo.InvariantCulture;
        double delayMs = Volatile.Read(ref _delayMs);
        string blame = Blame(site, sync);
        log.Report(FindingKind.ThreadPoolStarvation,
            (_waitedInQueues
                ? string.Create(c, $"The thread pool is starved: work queued on it waited {delayMs:0.#} ms without its queues emptying ") +
                  "(queued from pool threads, it waits in their own queues, which a probe work item passes) "
                : string.Create(c, $"The thread pool is starved: a probe work item waited {delayMs:0.#} ms to run ")) +
            string.Create(c, $"({ThreadPool.ThreadCount} thread(s), min {minThreads}, {ThreadPool.PendingWorkItemCount} work item(s) queued). ") +
            "Every async continuation and queued callback waits as long, database calls included. " + Blocked() + blame,
            new Dictionary<string, double>
            {
                ["probeDelayMs"] = delayMs,
                ["threads"] = ThreadPool.ThreadCount,
                ["queuedWorkItems"] = ThreadPool.PendingWorkItemCount,
                ["syncCall"] = site is null ? -1 : sync ? 1 : 0,
                ["providerAsyncBlocks"] = blockingAsyncProvider is null ? 0 : 1,
                ["blockedInOrseis"] = _pool.BlockedInOrseis,
                ["runningThreads"] = _pool.Threads,
                ["backlogMs"] = _pool.Backlog.TotalMilliseconds,
            },
            site, rateLimited: true, ofThisFlow: site is not null); // with a site: the Orseis call that met it; else the probe thread
    }

    /// <summary>How many pool threads Orseis' own blocking calls held, when that was the evidence or a large part of it.</summary>
    private string Blocked()
    {
        PoolThreads pool = _pool;
        if (pool.BlockedInOrseis == 0)
            return "";
        CultureInfo c = CultureInfo.InvariantCulture;
        return string.Create(c, $"{pool.BlockedInOrseis} of the {pool.Threads} thread(s) the pool let run work ") +
               "were blocked inside synchronous Orseis calls" +
               (pool.Existing > pool.Threads ? string.Create(c, $" ({pool.Existing} existed, the rest held idle)") : "") +
               (_orseisBlocked ? " (the runtime added no thread for it: completions kept coming, so it held the pool small). " : ". ");
    }

    /// <summary>What the finding says to look at: the call site Orseis saw while the pool starved, and how it blocks.</summary>
    private string Blame(string? site, bool sync)
    {
        if (site is null)
        {
            return "Look for blocking on pool threads: synchronous I/O, .Result / .Wait() / GetAwaiter().GetResult() on tasks, " +
                   "Thread.Sleep, locks held across I/O.";
        }

        if (sync)
        {
            return $"Orseis was called synchronously on a pool thread from {site} while it starved: " +
                   "blocking I/O there holds a pool thread per call; use the async API (QueryAsync, ExecuteAsync).";
        }

        if (blockingAsyncProvider is not null)
        {
            return $"Orseis was called asynchronously on a pool thread from {site} while it starved, " +
                   $"but {blockingAsyncProvider} runs its async methods synchronously: every call holds a pool thread " +
                   "for its whole round trip, as a synchronous call would. Use a provider with asynchronous I/O " +
                   "(MySqlConnector for MySQL and MariaDB), or raise ThreadPool.SetMinThreads to the calls you run at once.";
        }

        return $"Orseis was called asynchronously on a pool thread from {site} while it starved: " +
               "if that caller blocks on the task (.Result, .Wait(), GetAwaiter().GetResult()), that is sync-over-async; await it instead.";
    }
}

/// <summary>
/// The pool's threads at a probe tick: how many it let run work (<paramref name="Threads"/>), how many of them were
/// blocked inside Orseis calls, how many existed (<paramref name="Existing"/>, 0 when not known apart), how long work
/// has waited in its queues without a pause (<paramref name="Backlog"/>, <see cref="ThreadPoolProbe.ProbeState.Backlog"/>),
/// and how many it runs work on at once without waiting for the runtime to add one (<paramref name="Allowed"/>, 0 when
/// not known apart from <paramref name="Threads"/>; <see cref="AllowedThreads"/>).
/// </summary>
internal readonly record struct PoolThreads(int Threads, int BlockedInOrseis, int Existing = 0, TimeSpan Backlog = default, int Allowed = 0)
{
    /// <summary><see cref="Allowed"/>, or <see cref="Threads"/> when not known apart.</summary>
    public int AllowedOrRunning => Allowed > 0 ? Allowed : Threads;

    /// <summary>
    /// The threads now: those that run work are the existing ones, but no more than the runtime's goal
    /// (<paramref name="goal"/>, from its adjustment events; 0 if it announced none) nor fewer than its minimum, and never
    /// more than its maximum. Hill climbing lowers the goal under a busy CPU and the threads above it wait idle for up to
    /// 20 s: counted, they would hide a starvation that the few running threads, all blocked in Orseis, make.
    /// </summary>
    public static PoolThreads Now(int goal, int blockedInOrseis, TimeSpan backlog)
    {
        int existing = ThreadPool.ThreadCount;
        ThreadPool.GetMinThreads(out int min, out _);
        ThreadPool.GetMaxThreads(out int max, out _);
        return new PoolThreads(Math.Min(Running(existing, goal, min), max), blockedInOrseis, existing, backlog,
            AllowedThreads(min, max));
    }

    /// <summary>
    /// How many threads the pool starts at once, whatever else runs on it: its minimum (<c>SetMinThreads</c>), never above
    /// its maximum. Below it, work that waits and finds no thread free gets a new one at once; a minimum raised past the
    /// blocked calls leaves threads for queued work, and a probe that runs late then waited for a CPU, not for a thread.
    /// Above it, the threads the runtime's goal allows may all be busy with work Orseis does not see (a test host running
    /// other tests, an app's own blocking work): they are not counted as room (a CI run missed a starvation of 50 blocking
    /// calls that way, with a goal of 19 and 13 calls blocked).
    /// </summary>
    public static int AllowedThreads(int min, int max) => Math.Min(max, min);

    /// <summary>
    /// How many of <paramref name="existing"/> threads run work under <paramref name="goal"/> (0: unknown) and
    /// <paramref name="min"/>.
    /// </summary>
    public static int Running(int existing, int goal, int min) => goal > 0 ? Math.Min(existing, Math.Max(goal, min)) : existing;
}
