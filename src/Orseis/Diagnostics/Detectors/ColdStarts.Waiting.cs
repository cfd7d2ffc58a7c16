namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// A first burst whose opens are still waiting for their connects, named while they wait. A wave is otherwise judged once
/// its opens end; when some of its connects hang (a server far away or slow to answer at connect, a DNS or TLS stall, a
/// connect lost at the server's listen queue, which a MySQL client then waits out until its Connect Timeout: 15 s by
/// default), that is seconds after the harm began. From a first wave's first open, a watch follows the wave's opens and
/// the opens that begin while they are in flight (its crowd: a burst's callers still arriving after its first connect),
/// each until it ends; while any is followed, and only then, a timer looks at them every <see cref="Tick"/>. Once the
/// oldest still waiting for a connect (not queued for a full pool: the saturation detector's) has waited
/// <see cref="HangAfter"/>, counting only the time the timer itself ran on time (a process stopped, paused by a GC or
/// starved of threads sees its timer late, and that time is not counted: its opens did not wait on the server then), the
/// burst is named: as connects lost while the server answered the others (some of the followed opens connected), or as
/// connects that take seconds (none did). A reconnect wave none of whose connects completed is an outage's, the
/// server-unavailable detector's, and is not named here. Named so, a wave is one finding: its verdict is not reported
/// again (<see cref="ColdWave.NamedWhileWaiting"/>); named after its verdict (its crowd's opens still waiting), the
/// finding is an update of it. A warm call reads one field at its start and one at its end, 0 but while a wave is watched.
/// </summary>
internal sealed partial class ColdStarts
{
    /// <summary>How often the opens still waiting are looked at while a first wave is watched.</summary>
    internal static readonly TimeSpan Tick = TimeSpan.FromMilliseconds(50);

    /// <summary>
    /// When the first look comes after the watch began: a wave of connects under a few hundred ms (near
    /// <see cref="DiagnosticsOptions.SlowOpenFloor"/>) is over before it, and the watch runs (and is compiled) after its
    /// opens, not among them, where it would add to the process's time compiling and running that the rule nets out.
    /// </summary>
    internal static readonly TimeSpan FirstLook = TimeSpan.FromMilliseconds(300);

    /// <summary>A look later than this after the last one: the process did not run meanwhile (stopped, paused, starved).</summary>
    internal static readonly TimeSpan LateTick = TimeSpan.FromMilliseconds(350);

    /// <summary>
    /// How long an open of a first burst waits for its connect before the burst is named while it waits. Past any connect a
    /// fresh process makes over loopback, whatever its load: a clean burst of 330 at once beside a CPU hog (the server on the
    /// same two cores) took 170 to 480 ms a connect with every connect accepted, and a connect whose SYN the listen queue
    /// dropped is retried by the kernel after 1 s; and short enough that a connect taking seconds is named within 2 s of the
    /// burst (docs/results/diagnostics/hang-and-stampede-2026-12-01.md).
    /// </summary>
    internal static readonly TimeSpan HangAfter = TimeSpan.FromMilliseconds(1500);

    /// <summary>How long a watch lasts at most: a wave is followed 30 s at most, and a connect times out well before.</summary>
    private static readonly TimeSpan WatchLimit = TimeSpan.FromSeconds(60);

    private int _watching; // 1 from a first wave's first open until neither its opens nor its crowd's are in flight
    private readonly Dictionary<long, int> _waitingSince = []; // the followed opens waiting for a connect, by when each began
    private readonly Dictionary<long, int> _followedCrowd = []; // the crowd's opens followed (queued ones too), by when each began
    private int _waiting;
    private long _watchStart;
    private int _watchBegun; // every open followed so far, queued ones too
    private int _watchCompleted;
    private int _watchConnected;
    private int _watchFailed;
    private long _watchLastConnect; // when the latest followed open that connected completed
    // The watch's timer, made with the pool (not among a first wave's opens, where making it would add to their time) and
    // scheduled only while a wave is watched; it holds a box, not the detector.
    private readonly (WatchBox Box, ITimer Timer) _watchTimer = NewWatchTimer(log.Time);
    private long _lastTick;
    private double _watchedMs; // the time the timer ran on time since the watch began
    private bool _namedWhileWaiting; // this watch named its burst
    private bool _waveNamed; // the current wave was named by a watch (its verdict is not reported again)
    private bool _disposed;

    /// <summary>A first-wave open began at <paramref name="started"/>; under the lock.</summary>
    private void WaitBegan(long started, bool queued)
    {
        if (_warmingUp)
            return;
        if (Volatile.Read(ref _watching) == 0)
        {
            if (_disposed)
                return;
            StartWatch();
        }

        Follow(started, queued);
    }

    private long _starvedAtWatch;

    /// <summary>The thread-pool starvation findings this pool's log has counted (the detector's, when it is on).</summary>
    private long Starvations() =>
        log.Counts().TryGetValue(FindingKind.ThreadPoolStarvation, out long starved) ? starved : 0;

    private void StartWatch()
    {
        _watchStart = _lastTick = log.Time.GetTimestamp();
        _watchedMs = 0;
        _starvedAtWatch = Starvations();
        _namedWhileWaiting = false;
        Volatile.Write(ref _watching, 1);
        _watchTimer.Box.Owner = this;
        _watchTimer.Timer.Change(FirstLook, Tick);
    }

    private static (WatchBox, ITimer) NewWatchTimer(TimeProvider time)
    {
        var box = new WatchBox();
        return (box, time.CreateTimer(static s => ((WatchBox)s!).Owner?.Look(), box, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan));
    }

    /// <summary>What the watch's timer holds: the detector, from its first watch on.</summary>
    private sealed class WatchBox
    {
        public ColdStarts? Owner;
    }

    private void Follow(long started, bool queued)
    {
        _watchBegun++;
        if (queued)
            return;
        _waitingSince[started] = _waitingSince.GetValueOrDefault(started) + 1;
        _waiting++;
    }

    /// <summary>An open that is not the wave's began while a wave is watched: followed if the wave's opens are in flight.</summary>
    private void CrowdOpenStarting(long started, bool queued)
    {
        lock (_lock)
        {
            if (Volatile.Read(ref _watching) == 0 || _inFlight == 0 || _warmingUp || started == 0)
                return;
            _followedCrowd[started] = _followedCrowd.GetValueOrDefault(started) + 1;
            Follow(started, queued);
        }
    }

    /// <summary>An open that is not the wave's ended while a wave is watched (null <paramref name="outcome"/>: it failed).</summary>
    private void CrowdOpenEnded(in OpenStart start, OpenOutcome? outcome)
    {
        lock (_lock)
        {
            if (!_followedCrowd.TryGetValue(start.Started, out int count))
                return;
            if (count > 1)
                _followedCrowd[start.Started] = count - 1;
            else
                _followedCrowd.Remove(start.Started);
            WaitEnded(start, outcome);
            if (_inFlight == 0 && _waiting == 0)
                StopWatch();
        }
    }

    /// <summary>
    /// A followed open that began with <paramref name="start"/> ended (null <paramref name="outcome"/>: it failed); under the lock.
    /// </summary>
    private void WaitEnded(in OpenStart start, OpenOutcome? outcome)
    {
        if (Volatile.Read(ref _watching) == 0)
            return;
        if (outcome is null)
        {
            _watchFailed++;
        }
        else
        {
            _watchCompleted++;
            if (outcome.Value.PhysicalConnectsDuring > 0)
            {
                _watchConnected++;
                _watchLastConnect = log.Time.GetTimestamp();
            }
        }

        if (_waitingSince.TryGetValue(start.Started, out int count))
        {
            if (count > 1)
                _waitingSince[start.Started] = count - 1;
            else
                _waitingSince.Remove(start.Started);
            _waiting--;
        }
    }

    /// <summary>The wave's opens are all done: the watch ends unless opens of its crowd still wait; under the lock.</summary>
    private void WaveOpensDone()
    {
        if (_waiting == 0)
            StopWatch();
    }

    /// <summary>Ends the watch until the next wave; under the lock.</summary>
    private void StopWatch()
    {
        if (Volatile.Read(ref _watching) == 0)
            return;
        Volatile.Write(ref _watching, 0);
        _waitingSince.Clear();
        _followedCrowd.Clear();
        _waiting = _watchBegun = _watchCompleted = _watchConnected = _watchFailed = 0;
        _watchLastConnect = 0;
        _watchTimer.Timer.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
    }

    /// <summary>The timer: names the burst once its oldest open still waiting for a connect has waited <see cref="HangAfter"/>.</summary>
    internal void Look()
    {
        WaitingWave seen;
        lock (_lock)
        {
            if (Volatile.Read(ref _watching) == 0)
                return;
            long now = log.Time.GetTimestamp();
            double sinceMs = log.Time.GetElapsedTime(_lastTick, now).TotalMilliseconds;
            _lastTick = now;
            if (sinceMs <= LateTick.TotalMilliseconds)
                _watchedMs += sinceMs; // on time: the process ran, and saw its opens wait
            if (log.Time.GetElapsedTime(_watchStart, now) > WatchLimit)
            {
                StopWatch(); // a completion never heard: stop looking
                return;
            }

            if (_namedWhileWaiting || _warmingUp || _waiting == 0)
                return;
            if (Starvations() > _starvedAtWatch)
                return; // the thread pool starved meanwhile: async opens wait for a thread to run them, not for a connect
            long oldest = long.MaxValue;
            foreach (long began in _waitingSince.Keys)
                oldest = Math.Min(oldest, began);
            double waitedMs = Math.Min(log.Time.GetElapsedTime(oldest, now).TotalMilliseconds, _watchedMs);
            if (waitedMs < HangAfter.TotalMilliseconds)
                return;
            if (_watchConnected == 0 && _afterLoss)
                return; // every caller reconnecting to a server that answers none: an outage, ServerUnavailable's
            double connectedWithinMs = _watchConnected > 0
                ? Math.Max(0, log.Time.GetElapsedTime(_watchStart, _watchLastConnect).TotalMilliseconds)
                : 0;
            bool update = _inFlight == 0 && _burstSeen.Judged && _burstSeen.Cold; // its verdict spoke already
            seen = new WaitingWave(
                _waiting, _watchBegun, _watchConnected, _watchCompleted, _watchFailed, waitedMs, connectedWithinMs, _afterLoss, update);
            _namedWhileWaiting = true;
            _waveNamed = true;
        }

        if (!ColdStartMessage.ReportWaiting(log, seen))
        {
            lock (_lock)
                _waveNamed = false; // dropped: another cold-start finding of the pool spoke just before; the verdict may still
        }
    }

    public void Dispose()
    {
        lock (_lock)
        {
            _disposed = true;
            StopWatch();
        }

        _watchTimer.Timer.Dispose();
    }
}

/// <summary>
/// A first burst named while its opens wait (<see cref="ColdStarts"/>' watch): how many of its opens still wait for a
/// connect, how many began, how many connected, completed and failed so far, how long the oldest waiting one has waited (ms,
/// the time the watch ran on time), how long after the burst began its latest connect completed (ms), whether it began
/// because connections were lost, and whether the wave's verdict was reported already (this is then an update of it).
/// </summary>
internal readonly record struct WaitingWave(
    int Waiting, int Begun, int Connected, int Completed, int Failed, double WaitedMs, double ConnectedWithinMs, bool AfterLoss,
    bool Update = false);
