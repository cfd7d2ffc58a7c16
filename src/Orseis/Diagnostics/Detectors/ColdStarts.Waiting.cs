namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// A first wave whose opens are still waiting for their connects, named while they wait. A wave is otherwise judged once
/// its opens end; when some of its connects hang (a server far away or slow to answer at connect, a DNS or TLS stall, a
/// connect lost at the server's listen queue, which a MySQL client then waits out until its Connect Timeout: 15 s by
/// default), that is seconds to minutes after the harm began. While a first wave's opens are in flight, and only then, a
/// timer looks at them every <see cref="Tick"/>: once the oldest open still waiting for a connect (not queued for a full
/// pool: the saturation detector's) has waited <see cref="HangAfter"/>, counting only the time the timer itself ran on
/// time (a process stopped, paused by a GC or starved of threads or CPU sees its timer late, and that time is not counted:
/// the opens did not wait on the server then), the wave is named: as its connects lost while the server answered the
/// others (some of its connects completed), or as connects that take seconds (none did). A reconnect wave none of whose
/// connects completed is an outage's, the server-unavailable detector's, and not named here. Such a wave is one finding:
/// its verdict, when its opens end, is not reported again (<see cref="ColdWave.NamedWhileWaiting"/>). Warm calls never
/// reach this: the timer exists from a pool's first first-wave open and runs only while such opens are in flight.
/// </summary>
internal sealed partial class ColdStarts
{
    /// <summary>How often the opens still waiting are looked at while a first wave's opens are in flight.</summary>
    internal static readonly TimeSpan Tick = TimeSpan.FromMilliseconds(50);

    /// <summary>A look later than this after the last one: the process did not run meanwhile (stopped, paused, starved).</summary>
    internal static readonly TimeSpan LateTick = TimeSpan.FromMilliseconds(200);

    /// <summary>
    /// How long an open of a first wave waits for its connect before the wave is named while it waits. Past any connect a
    /// fresh process makes over loopback, whatever its load: a clean burst of 330 at once beside a CPU hog (the server on the
    /// same two cores) took 170 to 480 ms a connect with every connect accepted, and a connect whose first SYN the listen
    /// queue dropped is retried by the kernel after 1 s; under 2 s, so a connect that takes seconds is named within 2 s of
    /// the burst (docs/results/diagnostics/hang-and-stampede-2026-12-01.md).
    /// </summary>
    internal static readonly TimeSpan HangAfter = TimeSpan.FromMilliseconds(1500);

    private readonly Dictionary<long, int> _waitingSince = []; // the wave's opens waiting for a connect, by when each began
    private int _waiting;
    private int _waveOpensBegun; // every open of the wave so far, queued ones too
    private int _waveOpensFailed;
    private long _lastConnectDone; // when the wave's latest connecting open completed (0: none yet)
    private ITimer? _timer;
    private bool _ticking;
    private long _lastTick;
    private double _watchedMs; // the time the timer ran on time since the wave began
    private bool _namedWhileWaiting;
    private bool _disposed;

    /// <summary>An open of the wave began at <paramref name="started"/>; under the lock.</summary>
    private void WaitBegan(long started, bool queued)
    {
        _waveOpensBegun++;
        if (queued || _warmingUp)
            return;
        _waitingSince[started] = _waitingSince.GetValueOrDefault(started) + 1;
        _waiting++;
        if (_ticking || _disposed)
            return;
        _ticking = true;
        _lastTick = log.Time.GetTimestamp();
        _watchedMs = 0;
        (_timer ??= log.Time.CreateTimer(static s => ((ColdStarts)s!).Look(), this, Tick, Tick)).Change(Tick, Tick);
    }

    /// <summary>An open of the wave that began with <paramref name="start"/> ended (null <paramref name="outcome"/>: it failed); under the lock.</summary>
    private void WaitEnded(in OpenStart start, OpenOutcome? outcome)
    {
        if (outcome is null)
            _waveOpensFailed++;
        else if (outcome.Value.PhysicalConnectsDuring > 0)
            _lastConnectDone = log.Time.GetTimestamp();
        if (_waitingSince.TryGetValue(start.Started, out int count))
        {
            if (count > 1)
                _waitingSince[start.Started] = count - 1;
            else
                _waitingSince.Remove(start.Started);
            _waiting--;
        }
    }

    /// <summary>The wave's opens are all done: the watch stops until the next wave; under the lock.</summary>
    private void ResetWaiting()
    {
        _waitingSince.Clear();
        _waiting = _waveOpensBegun = _waveOpensFailed = 0;
        _lastConnectDone = 0;
        _namedWhileWaiting = false;
        _watchedMs = 0;
        if (_ticking)
        {
            _ticking = false;
            _timer?.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
        }
    }

    /// <summary>The timer: names the wave once its oldest open still waiting for a connect has waited <see cref="HangAfter"/>.</summary>
    internal void Look()
    {
        WaitingWave seen;
        lock (_lock)
        {
            if (!_ticking)
                return;
            long now = log.Time.GetTimestamp();
            double sinceMs = log.Time.GetElapsedTime(_lastTick, now).TotalMilliseconds;
            _lastTick = now;
            if (sinceMs <= LateTick.TotalMilliseconds)
                _watchedMs += sinceMs; // on time: the process ran, and saw its opens wait
            if (_namedWhileWaiting || _warmingUp || _waiting == 0)
                return;
            long oldest = long.MaxValue;
            foreach (long began in _waitingSince.Keys)
                oldest = Math.Min(oldest, began);
            double waitedMs = Math.Min(log.Time.GetElapsedTime(oldest, now).TotalMilliseconds, _watchedMs);
            if (waitedMs < HangAfter.TotalMilliseconds)
                return;
            int connected = _connectingOpens;
            if (connected == 0 && _afterLoss)
                return; // every caller reconnecting to a server that answers none: an outage, ServerUnavailable's
            double connectedWithinMs = connected > 0 ? Math.Max(0, log.Time.GetElapsedTime(_waveStart, _lastConnectDone).TotalMilliseconds) : 0;
            seen = new WaitingWave(
                _waiting, _waveOpensBegun, connected, _opens, _waveOpensFailed, waitedMs, connectedWithinMs, _afterLoss);
            _namedWhileWaiting = true;
        }

        if (!ColdStartMessage.ReportWaiting(log, seen))
        {
            lock (_lock)
                _namedWhileWaiting = false; // dropped by the rate limit: the wave's verdict may still speak
        }
    }

    public void Dispose()
    {
        lock (_lock)
        {
            _disposed = true;
            _ticking = false;
        }

        _timer?.Dispose();
    }
}

/// <summary>
/// A first wave named while its opens wait (<see cref="ColdStarts"/>' watch): how many of its opens still wait for a
/// connect, how many began, how many connected, completed and failed so far, how long the oldest waiting one has waited (ms,
/// the time the watch ran on time), how long after the wave began its latest connect completed (ms), and whether the wave
/// began because connections were lost.
/// </summary>
internal readonly record struct WaitingWave(
    int Waiting, int Begun, int Connected, int Completed, int Failed, double WaitedMs, double ConnectedWithinMs, bool AfterLoss);
