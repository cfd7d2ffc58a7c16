using System.Runtime;
using System.Runtime.CompilerServices;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// A first wave of connects, judged by what it cost the requests it served: the pool's first burst (every new instance
/// of an app after a deploy, a scale-out or a restart), or every caller reconnecting at once after connections were lost
/// (a server restart, a failover). The slow-open detector never judges a first wave as a cold pool; this one follows the
/// wave's opens and then the holds they began, and sums it up once the last of those holds went back (or, for holds
/// still out <see cref="HoldsWait"/> after the last open, at the next release, counting them as held until then); the
/// wave is then judged once <see cref="WarmHolds"/> holds begun after it are back (the requests' own work, on the now
/// warm connections), or at the first release <see cref="WarmWait"/> later, a report, or a new wave. It
/// reads how long the process spent compiling code (<see cref="JitInfo.GetCompilationTime"/>) over the wave, during each
/// of its opens and during each of their holds: a fresh process's connects, and its first statements, wait for their
/// code; and, from its first open to its last, what the process did (<see cref="ColdWaveActivity"/>): a slow server
/// leaves it idle, waiting, a fresh process's start-up does not. Judged by <see cref="ColdStartRule"/>, reported by
/// <see cref="ColdStartMessage"/>. Opens that begin while a wave's opens are still in flight, though no longer counted
/// in it, belong to its crowd (<see cref="Overlaps"/>): the slow-open detector leaves them to the wave's verdict.
/// </summary>
/// <param name="log">Where findings go.</param>
/// <param name="connects">How the pool's physical connects are known; with none, a wave is never reported.</param>
/// <param name="compileTime">The process's time spent compiling code so far (the JIT's); tests give their own.</param>
/// <param name="activity">Starts following what the process does (<see cref="ColdWaveActivity"/>) at a wave's first open;
/// what it returns stops it at the wave's last and says what was seen. By default sampled on the system clock only (a
/// test's or a replay's clock has no process to sample); tests give their own.</param>
/// <param name="maxPoolSize">The pool's Max Pool Size, when known: a first-wave open that entered with more callers wanting a
/// connection than that waits for the pool, not for a connect, and is not one of the opens watched while they wait
/// (<see cref="Tick"/>).</param>
internal sealed partial class ColdStarts(
    FindingLog log, ConnectCount connects, Func<TimeSpan>? compileTime = null, Func<Func<WaveActivity>>? activity = null,
    int? maxPoolSize = null)
    : PoolObserver, IDisposable
{
    /// <summary>
    /// How long after a first wave its burst's late callers are judged with it at most (<see cref="LateInBurst"/>), if the
    /// pool is never quiet before: as long as a first wave is followed (PoolTelemetry's FirstWaveLimit).
    /// </summary>
    internal static readonly TimeSpan BurstLimit = TimeSpan.FromSeconds(30);

    // The last first wave's burst, from its last open until an open finds the pool quiet (no caller holding or opening):
    // 1 while it goes on (read without the lock at every open's start), with what the wave measured and its verdict.
    private int _burst;
    private long _burstSince;
    private FirstBurst _burstSeen;

    /// <summary>How long after the wave's last open its holds still out are waited for before it is judged without them.</summary>
    internal static readonly TimeSpan HoldsWait = TimeSpan.FromSeconds(10);

    /// <summary>
    /// How many holds that began after the wave, on its now warm connections, price the requests' own work (their median);
    /// fewer when the wave had fewer.
    /// </summary>
    internal const int WarmHolds = 8;

    /// <summary>
    /// How long a wave whose holds are back waits for warm holds: past it, the next release (or a report) judges it with
    /// the warm holds seen, or, with none, with its own holds net of the process's compiling.
    /// </summary>
    internal static readonly TimeSpan WarmWait = TimeSpan.FromSeconds(2);

    private readonly Func<TimeSpan> _compileTime = compileTime ?? (static () => JitInfo.GetCompilationTime());
    private readonly Func<Func<WaveActivity>> _activity = activity ?? (log.Time == TimeProvider.System
        ? static () => ColdWaveActivity.Start().Stop
        : static () => static () => WaveActivity.Unknown);
    private Func<WaveActivity>? _stopActivity; // the wave's sampling, from its first open to its last
    private readonly Lock _lock = new();
    private readonly bool _followed = connects != ConnectCount.None; // no connects known: a wave is never reported
    private int _inFlight;
    private int _opens;
    private int _connectingOpens;
    private long _connects;
    private long _meterStart = long.MaxValue;
    private long _meterEnd;
    private double _createStart = double.MaxValue;
    private double _createEnd;
    private double _fastestConnectOpenMs = double.MaxValue;
    private double _openMsSum;
    private double _slowestOpenMs;
    private bool _afterLoss;
    private bool _warmingUp;
    private double _threadPoolDelayMs;
    private double _asyncThreadPoolDelayMs; // during async opens only: a synchronous open waits for no continuation
    private int _asyncOpens;
    private double _compileStartMs = double.NaN; // the process's compile time when the wave's first open began
    private long _waveStart; // when the wave's first open began
    private readonly Dictionary<long, double> _openCompileStart = []; // each open's start: the compile time then
    private double _openCompileMsSum; // the compile time during each open, at most the open's own time
    private long _lastOpenEnd; // when the last wave's last open completed (0: none yet)
    // Each synchronous open's own thread's figures at its start (compile time, scheduler times), by its start and thread
    // (it ends on the same thread).
    private readonly Dictionary<(long Started, int Thread), ColdOpenThread> _openThreadStart = [];
    private double _openersCompileMs; // what the synchronous opens' own threads compiled during them, summed
    private int _threadTimedOpens; // the opens it sums: each read on its own thread at its start and its end
    private readonly List<double> _openMs = []; // each open's time, for the wave's low percentile
    private readonly List<double> _connectOpenMs = []; // each connecting open's time
    private readonly List<double> _connectOnTimeMs = []; // the same less the thread pool's lateness (for an async open)
    private readonly List<double> _connectNetMs = []; // the same less what the process's start-up could have cost it
    // Each synchronous connecting open's time blocked, with the process's compiling meanwhile; and a list to take their
    // tenth percentiles in (as blocked, and net of the openers' share of the compiling: ColdStartRule.BlockedServerMs).
    private readonly List<(double BlockedMs, double CompileMs)> _connectBlocked = [];
    private readonly List<double> _blockedTenth = [];
    private bool _registered;
    private int _judging; // verdicts taken (TakePending) and not yet reported (Judge)

    /// <summary>Each pool's wave follower, for the slow-open detector (<see cref="Overlaps"/>).</summary>
    private static readonly ConditionalWeakTable<FindingLog, ColdStarts> ByLog = new();

    // The holds the wave's opens began, by the timestamp each began at (its open's completion), until they go back.
    private readonly Dictionary<long, int> _holds = [];
    private int _holdsOut; // the wave's holds not back yet
    private int _holdsBack;
    private int _holdsWithStatement;
    private double _heldMsSum;
    private readonly Dictionary<long, double> _holdCompileStart = []; // each hold's start: the compile time then
    private double _heldCompileMsSum; // the compile time during each hold back, at most the hold's own time
    private ColdWave? _ended; // the wave's opens are all done; its holds are not all back
    private long _endedAt;
    private int _watch; // read without the lock on every release: 0 whenever no wave's hold is out and no verdict waits

    // A wave whose holds are all back waits for the same pool's warm holds, the requests' own work without the cold start.
    private ColdWaveHolds? _pending;
    private long _pendingSince;
    private readonly double[] _warmHeldMs = new double[WarmHolds];
    private int _warmCount;

    /// <summary>
    /// Set on the flow of a warm-up (<see cref="Database.WarmUpAsync"/>) while it opens: a wave that a warm-up's opens
    /// belong to is the cure, not a cold start, and is not reported. Read only for a first wave's opens.
    /// </summary>
    public static AsyncLocal<bool> InWarmUp { get; } = new();

    /// <summary>
    /// Whether an open of <paramref name="pool"/>'s pool that began at <paramref name="started"/> ran while a first wave's
    /// opens were still in flight: one of its crowd (the connects made while it ran are mostly the wave's), judged with
    /// the wave, not open by open. Read only for a slow open that connected.
    /// </summary>
    public static bool Overlaps(FindingLog pool, long started)
    {
        if (!ByLog.TryGetValue(pool, out ColdStarts? waves))
            return false;
        lock (waves._lock)
            return waves._inFlight > 0 || waves._lastOpenEnd >= started;
    }

    /// <summary>
    /// An open of <paramref name="pool"/>'s pool that began after its first wave's opens is about to be reported as a cold
    /// pool: the wave, whose verdict may still wait for its holds or for warm ones, is judged first, as it stands (holds
    /// still out counted as held until now, the work priced by the warm holds seen). Callers still arriving after the wave
    /// (200 synchronous callers in <c>Task.Run</c> on a busy machine: the wave closes at its first connect, with half of them
    /// or fewer) connect on the same slow server, and the first of them to finish would otherwise be the pool's one
    /// <see cref="FindingKind.SlowOpen"/> finding (rate-limited), saying "Cold pool" where the wave says "Cold start".
    /// </summary>
    public static void JudgeBefore(FindingLog pool)
    {
        if (ByLog.TryGetValue(pool, out ColdStarts? waves))
            waves.JudgeNow();
    }

    /// <summary>
    /// The first burst of <paramref name="pool"/>'s pool that an open begun at <paramref name="started"/>, after its first
    /// wave, is a late caller of; null when it is none. A first wave ends at its first connect (<see cref="ConnectWaves"/>),
    /// and the burst's callers still arriving (200 synchronous callers in <c>Task.Run</c> on a busy machine: half or more)
    /// connect after it, while the burst runs. Its burst lasts from the wave's last open until an open finds the pool quiet
    /// (no caller holding a connection or opening one: a new load, not the burst), at most <see cref="BurstLimit"/>. Read
    /// only for a slow open that connected, after <see cref="JudgeBefore"/>.
    /// </summary>
    public static FirstBurst? LateInBurst(FindingLog pool, long started) =>
        ByLog.TryGetValue(pool, out ColdStarts? waves) ? waves.Burst(started) : null;

    /// <summary>The burst an open begun at <paramref name="started"/> is a late caller of (<see cref="LateInBurst"/>).</summary>
    private FirstBurst? Burst(long started)
    {
        lock (_lock)
        {
            if (Volatile.Read(ref _burst) == 0 || started <= _burstSince || log.Time.GetElapsedTime(_burstSince) > BurstLimit)
                return null;
            return _burstSeen;
        }
    }

    /// <summary>Judges a wave whose verdict waits (<see cref="JudgeBefore"/>).</summary>
    private void JudgeNow()
    {
        ColdWaveHolds? done;
        lock (_lock)
        {
            long now = log.Time.GetTimestamp();
            if (_ended is not null)
                Await(Settle(now), now);
            done = TakePending();
        }

        if (done is { } verdict)
            Judge(verdict);

        // A verdict another thread took from under the lock is being reported: let it go first (a few microseconds).
        SpinWait.SpinUntil(() => Volatile.Read(ref _judging) == 0, 50);
    }

    public override HeardFacts Hears => HeardFacts.OpenStarting | HeardFacts.OpenCompleted | HeardFacts.OpenFailed | HeardFacts.Released;

    public override void OnOpenStarting(in OpenStart start)
    {
        if (start.FirstWave && _followed)
        {
            OnFirstWaveOpenStarting(start.AfterLoss, start.Started, start.Async ? null : ColdOpenThread.Now(), start.Queued(maxPoolSize));
            return;
        }

        if (Volatile.Read(ref _watching) != 0)
            CrowdOpenStarting(start.Started, start.Queued(maxPoolSize)); // begun while a first wave's opens are in flight
        if (Volatile.Read(ref _burst) != 0 && start.Demand == 1)
            Volatile.Write(ref _burst, 0); // the pool is quiet (this caller alone wants a connection): the burst is over
    }

    public override void OnOpenCompleted(in CompletedOpen open)
    {
        if (open.Start.FirstWave && _followed)
        {
            ColdOpenThread? thread = open.Start.Async ? null : ColdOpenThread.Now();
            OnFirstWaveOpenCompleted(open.Start, open.Outcome, open.At, open.ThreadPoolDelay, thread);
        }
        else if (Volatile.Read(ref _watching) != 0)
        {
            CrowdOpenEnded(open.Start, open.Outcome); // warm calls: one read, 0 but while a first wave is watched
        }
    }

    public override void OnOpenFailed(in FailedOpen open)
    {
        if (open.Start.FirstWave && _followed)
            OnFirstWaveOpenCompleted(open.Start, null, 0);
        else if (Volatile.Read(ref _watching) != 0)
            CrowdOpenEnded(open.Start, null);
    }

    public override void OnReleased(in Release release)
    {
        // Every release of the pool comes here: while no wave's hold is out and no verdict waits, one read and nothing else.
        if (Volatile.Read(ref _watch) != 0)
            OnHoldReleased(release.Holder.Started, release.Held, release.Holder.Kind, release.At);
    }

    /// <summary>
    /// A first-wave open began at <paramref name="started"/>; <paramref name="afterLoss"/> when its wave began because
    /// connections were lost; <paramref name="thread"/>, for a synchronous open, its thread's compile time then;
    /// <paramref name="queued"/> when it entered with the pool full (it waits for a release, not a connect).
    /// </summary>
    public void OnFirstWaveOpenStarting(bool afterLoss, long started, ColdOpenThread? thread = null, bool queued = false)
    {
        ColdWaveHolds? done = null;
        lock (_lock)
        {
            // A new wave while the last one's holds are still out (connections lost again), or while its verdict waits for
            // warm holds: judge that one as it stands.
            if (_ended is not null)
                Await(Settle(log.Time.GetTimestamp()), log.Time.GetTimestamp());
            done = TakePending();
            double compiledMs = _compileTime().TotalMilliseconds;
            if (!_registered)
            {
                ByLog.AddOrUpdate(log, this); // for the slow-open detector, from this pool's first wave on
                _registered = true;
            }

            if (double.IsNaN(_compileStartMs))
            {
                _waveNamed = false; // a new wave: the last one's verdict was taken above
                _compileStartMs = compiledMs;
                _waveStart = log.Time.GetTimestamp();
                _stopActivity ??= _activity();
            }

            _openCompileStart[started] = compiledMs;
            if (thread is { } t)
                _openThreadStart[(started, t.ThreadId)] = t;
            _inFlight++;
            _afterLoss |= afterLoss;
            _warmingUp |= InWarmUp.Value;
            WaitBegan(started, queued);
        }

        if (done is { } verdict)
            Judge(verdict);
    }

    /// <summary>
    /// A first-wave open that began with <paramref name="start"/> completed at <paramref name="at"/> (the timestamp its
    /// hold begins at, 0 for none), or failed (<paramref name="outcome"/> null). When none is left in flight the wave's
    /// opens are summed up, and it is judged once the holds they began are back. With a provider meter, the wave's
    /// connects and their time are the meter's totals from the wave's first open to its last (each open's own figures
    /// count every connect made while it ran).
    /// </summary>
    /// <param name="start">How the open began.</param>
    /// <param name="outcome">How it ended; null when it failed.</param>
    /// <param name="at">When it completed, as its hold's start.</param>
    /// <param name="threadPoolDelay">How late the thread pool ran work while it ran: an async connect waits that long for its
    /// continuations, and the provider counts it in its connect time.</param>
    /// <param name="thread">For a synchronous open, its thread's compile time at the end (<see cref="ColdOpenThread"/>).</param>
    public void OnFirstWaveOpenCompleted(
        in OpenStart start, in OpenOutcome? outcome, long at, TimeSpan threadPoolDelay = default, ColdOpenThread? thread = null)
    {
        ColdWaveHolds? done = null;
        lock (_lock)
        {
            WaitEnded(start, outcome);
            _threadPoolDelayMs = Math.Max(_threadPoolDelayMs, threadPoolDelay.TotalMilliseconds);
            if (start.Async)
            {
                _asyncOpens++;
                _asyncThreadPoolDelayMs = Math.Max(_asyncThreadPoolDelayMs, threadPoolDelay.TotalMilliseconds);
            }
            if (outcome is { } o)
            {
                if (connects == ConnectCount.ProviderMeter && start.PhysicalConnects >= 0)
                {
                    _meterStart = Math.Min(_meterStart, start.PhysicalConnects);
                    _meterEnd = Math.Max(_meterEnd, start.PhysicalConnects + o.PhysicalConnectsDuring);
                    _createStart = Math.Min(_createStart, start.CreateSeconds);
                    _createEnd = Math.Max(_createEnd, start.CreateSeconds + (o.CreateMsDuring / 1000));
                }

                _opens++;
                _openMsSum += o.Elapsed.TotalMilliseconds;
                double compiledMs = _compileTime().TotalMilliseconds;
                double openCompileMs = 0;
                if (_openCompileStart.TryGetValue(start.Started, out double compiledAtStart))
                {
                    openCompileMs = Math.Clamp(compiledMs - compiledAtStart, 0, o.Elapsed.TotalMilliseconds);
                    _openCompileMsSum += openCompileMs;
                }
                _slowestOpenMs = Math.Max(_slowestOpenMs, o.Elapsed.TotalMilliseconds);
                _openMs.Add(o.Elapsed.TotalMilliseconds);
                ColdOpenThread? began = null;
                if (thread is { } end && _openThreadStart.Remove((start.Started, end.ThreadId), out ColdOpenThread ownAtStart))
                {
                    _openersCompileMs += Math.Clamp(end.CompileMs - ownAtStart.CompileMs, 0, o.Elapsed.TotalMilliseconds);
                    _threadTimedOpens++;
                    began = ownAtStart;
                }
                if (o.PhysicalConnectsDuring > 0)
                {
                    _connectingOpens++;
                    _connects += o.PhysicalConnectsDuring;
                    _fastestConnectOpenMs = Math.Min(_fastestConnectOpenMs, o.Elapsed.TotalMilliseconds);
                    // Its time; less the thread pool's lateness (an async open's continuations waited for it); and less what
                    // start-up could have cost it, the process's compiling during it or that lateness where longer (the
                    // netting of ColdStartRule.NetOpenMs, open by open): ColdStartRule.ServerConnectMs.
                    _connectOpenMs.Add(o.Elapsed.TotalMilliseconds);
                    double lateMs = start.Async ? threadPoolDelay.TotalMilliseconds : 0;
                    _connectOnTimeMs.Add(Math.Max(0, o.Elapsed.TotalMilliseconds - lateMs));
                    _connectNetMs.Add(Math.Max(0, o.Elapsed.TotalMilliseconds - Math.Max(openCompileMs, lateMs)));
                    // A synchronous open read on its own thread at both ends: the time it was blocked (not on a CPU, not
                    // waiting for one), with the process's compiling during it (ColdStartRule.BlockedServerMs).
                    if (began is { } b && thread is { } e && e.BlockedSinceMs(b) is var blocked && !double.IsNaN(blocked))
                    {
                        _connectBlocked.Add((blocked, openCompileMs));
                    }
                }

                if (at != 0)
                {
                    _holdCompileStart[at] = compiledMs;
                    _holds[at] = _holds.GetValueOrDefault(at) + 1;
                    _holdsOut++;
                    Watch();
                }
            }

            if (--_inFlight > 0)
                return;
            _lastOpenEnd = log.Time.GetTimestamp();
            WaveActivity seen = _stopActivity?.Invoke() ?? WaveActivity.Unknown;
            _stopActivity = null;
            if (_opens > 0 && !_warmingUp)
            {
                long made = connects == ConnectCount.ProviderMeter ? Math.Max(0, _meterEnd - _meterStart) : _connects;
                _endedAt = log.Time.GetTimestamp();
                double compiledMs = double.IsNaN(_compileStartMs) ? 0 : Math.Max(0, _compileTime().TotalMilliseconds - _compileStartMs);
                double waveMs = double.IsNaN(_compileStartMs) ? 0 : log.Time.GetElapsedTime(_waveStart, _endedAt).TotalMilliseconds;
                _ended = new ColdWave(
                    _opens, _connectingOpens, made, ConnectMs(made), _openMsSum / _opens, _slowestOpenMs, _afterLoss, _threadPoolDelayMs,
                    compiledMs, waveMs, _openCompileMsSum / _opens, seen, _asyncThreadPoolDelayMs, Synchronous: _asyncOpens == 0,
                    OpenersCompileMs: _asyncOpens == 0 && _threadTimedOpens > 0
                        ? _openersCompileMs * _opens / _threadTimedOpens
                        : double.NaN,
                    LowOpenMs: LowOpenMs(),
                    LowConnectOpenMs: TenthOf(_connectOpenMs),
                    LowConnectOnTimeMs: TenthOf(_connectOnTimeMs),
                    LowConnectNetMs: TenthOf(_connectNetMs),
                    NamedWhileWaiting: _waveNamed);
                if (_asyncOpens == 0 && _connectBlocked.Count > 0)
                {
                    // As blocked, and less the share of the process's compiling the opening threads did (what a blocked open
                    // could wait for).
                    double share = ColdStartRule.OpenersShare(_ended.Value);
                    _ended = _ended.Value with
                    {
                        LowConnectBlockedMs = BlockedTenth(0),
                        LowConnectBlockedNetMs = BlockedTenth(share),
                    };
                }

                BurstFrom(_ended.Value);
            }
            else
            {
                Volatile.Write(ref _burst, 0); // a warm-up's opens: the cure, no burst to judge
                ClearHolds();
            }

            ResetOpens();
            if (_ended is not null && _holdsOut == 0)
                Await(Settle(_endedAt), _endedAt);
        }

        if (done is { } verdict)
            Judge(verdict);
    }

    /// <summary>
    /// A hold went back: one of the wave's when it began at <paramref name="started"/> as one of its opens completed.
    /// <paramref name="kind"/> is the statement that labelled it (<see cref="HoldKinds"/>), 0 when none ran on it.
    /// </summary>
    public void OnHoldReleased(long started, TimeSpan held, int kind, long at)
    {
        ColdWaveHolds? done = null;
        lock (_lock)
        {
            if (_holds.TryGetValue(started, out int count))
            {
                if (count > 1)
                    _holds[started] = count - 1;
                else
                    _holds.Remove(started);
                _holdsOut--;
                Watch();
                _holdsBack++;
                _heldMsSum += held.TotalMilliseconds;
                if (_holdCompileStart.TryGetValue(started, out double compiledAtStart))
                    _heldCompileMsSum += Math.Clamp(_compileTime().TotalMilliseconds - compiledAtStart, 0, held.TotalMilliseconds);
                if (kind != 0)
                    _holdsWithStatement++;
            }
            else if (kind != 0 && (_ended is not null || _pending is not null) && started > _endedAt && _warmCount < WarmHolds)
            {
                _warmHeldMs[_warmCount++] = held.TotalMilliseconds; // a hold begun after the wave, on a warm connection
            }

            if (_ended is not null && (_holdsOut == 0 || log.Time.GetElapsedTime(_endedAt, at) >= HoldsWait))
                Await(Settle(at), at);
            bool priced = _pending is { } waiting && _warmCount >= Math.Min(WarmHolds, waiting.Holds);
            if (_pending is not null && (priced || log.Time.GetElapsedTime(_pendingSince, at) >= WarmWait))
                done = TakePending();
        }

        if (done is { } verdict)
            Judge(verdict);
    }

    /// <summary>
    /// The ended wave with its holds as they stand at <paramref name="now"/> (those still out held until then); under the lock.
    /// </summary>
    private ColdWaveHolds Settle(long now)
    {
        double heldMs = _heldMsSum, heldCompileMs = _heldCompileMsSum;
        int holds = _holdsBack;
        if (_holds.Count > 0)
        {
            double compiledMs = _compileTime().TotalMilliseconds;
            foreach ((long began, int count) in _holds)
            {
                double outMs = Math.Max(0, log.Time.GetElapsedTime(began, now).TotalMilliseconds);
                heldMs += count * outMs;
                heldCompileMs += count * Math.Clamp(compiledMs - _holdCompileStart.GetValueOrDefault(began, compiledMs), 0, outMs);
                holds += count;
            }
        }

        var verdict = new ColdWaveHolds(
            _ended!.Value, holds, holds > 0 ? heldMs / holds : 0, _holdsWithStatement > 0 || _holdsBack < holds,
            holds > 0 ? heldCompileMs / holds : 0);
        _ended = null;
        ClearHolds();
        return verdict;
    }

    /// <summary>A report is read: a verdict still waiting for warm holds is judged with those seen.</summary>
    public override void Describe(ReportFigures figures)
    {
        ColdWaveHolds? done;
        lock (_lock)
            done = TakePending();
        if (done is { } verdict)
            Judge(verdict);
    }

    /// <summary>The settled wave waits for warm holds from <paramref name="now"/>; under the lock.</summary>
    private void Await(ColdWaveHolds verdict, long now)
    {
        _pending = verdict;
        _pendingSince = now;
        Watch();
    }

    /// <summary>The waiting verdict, priced with the warm holds seen (their median), and forgets it; under the lock.</summary>
    private ColdWaveHolds? TakePending()
    {
        if (_pending is not { } verdict)
            return null;
        double warmMs = 0;
        if (_warmCount > 0)
        {
            Array.Sort(_warmHeldMs, 0, _warmCount);
            warmMs = _warmHeldMs[_warmCount / 2];
        }

        verdict = verdict with { WarmHolds = _warmCount, WarmHeldMs = warmMs };
        if (_waveNamed && !verdict.Wave.NamedWhileWaiting)
            verdict = verdict with { Wave = verdict.Wave with { NamedWhileWaiting = true } }; // named by its crowd, after its opens
        Interlocked.Increment(ref _judging); // until Judge has reported it (JudgeBefore waits for it)
        _pending = null;
        _warmCount = 0;
        Watch();
        return verdict;
    }

    /// <summary>Whether releases must be looked at: a wave's hold is out, or a verdict waits for warm ones; under the lock.</summary>
    private void Watch() => Volatile.Write(ref _watch, _holdsOut != 0 || _pending is not null ? 1 : 0);

    /// <summary>Forgets the holds followed (none is out any more); under the lock.</summary>
    private void ClearHolds()
    {
        _holds.Clear();
        _holdCompileStart.Clear();
        _holdsOut = 0;
        Watch();
        _holdsBack = _holdsWithStatement = 0;
        _heldMsSum = _heldCompileMsSum = 0;
    }

    /// <summary>Ready for the next wave's opens (its holds are followed apart, until it ends); under the lock.</summary>
    private void ResetOpens()
    {
        _inFlight = 0;
        _opens = _connectingOpens = 0;
        _connects = 0;
        _openMsSum = _slowestOpenMs = 0;
        _fastestConnectOpenMs = double.MaxValue;
        _meterStart = long.MaxValue;
        _meterEnd = 0;
        _createStart = double.MaxValue;
        _createEnd = 0;
        _afterLoss = false;
        _warmingUp = false;
        _threadPoolDelayMs = _asyncThreadPoolDelayMs = 0;
        _asyncOpens = 0;
        _compileStartMs = double.NaN;
        _openCompileStart.Clear();
        _openCompileMsSum = 0;
        _openThreadStart.Clear();
        _openersCompileMs = 0;
        _threadTimedOpens = 0;
        _openMs.Clear();
        _connectOpenMs.Clear();
        _connectOnTimeMs.Clear();
        _connectNetMs.Clear();
        _connectBlocked.Clear();
        WaveOpensDone();
    }

    /// <summary>The tenth percentile of the wave's opens' times (<see cref="ColdWave.LowOpenMs"/>); under the lock.</summary>
    private double LowOpenMs() => TenthOf(_openMs);

    /// <summary>
    /// The tenth percentile of the synchronous connecting opens' blocked time less <paramref name="compileShare"/> of the
    /// process's compiling during each (at least 0); under the lock.
    /// </summary>
    private double BlockedTenth(double compileShare)
    {
        _blockedTenth.Clear();
        foreach ((double blockedMs, double compileMs) in _connectBlocked)
            _blockedTenth.Add(Math.Max(0, blockedMs - (compileShare * compileMs)));
        return TenthOf(_blockedTenth);
    }

    /// <summary>The tenth percentile of <paramref name="values"/> (sorting them); NaN when there are none.</summary>
    private static double TenthOf(List<double> values)
    {
        if (values.Count == 0)
            return double.NaN;
        values.Sort();
        return values[values.Count / 10];
    }

    /// <summary>
    /// What one connect cost: the provider's own connect time where it has a meter; otherwise the fastest open that made
    /// a connection (callers connecting at once wait behind each other inside MySql.Data, so the others overstate it).
    /// </summary>
    private double ConnectMs(long made) => made <= 0
        ? 0
        : connects == ConnectCount.ProviderMeter ? (_createEnd - _createStart) * 1000 / made : _fastestConnectOpenMs;

    /// <summary>The burst of the wave that just ended begins (<see cref="LateInBurst"/>); under the lock.</summary>
    private void BurstFrom(in ColdWave wave)
    {
        _burstSince = _lastOpenEnd; // an open begun by then is the wave's crowd (Overlaps); any later one, a late caller
        _burstSeen = new FirstBurst(wave.LowOpenMs, wave.Connects, Judged: false, Cold: false, WorkMs: double.NaN);
        Volatile.Write(ref _burst, 1);
    }

    private void Judge(in ColdWaveHolds verdict)
    {
        try
        {
            bool cold = ColdStartRule.IsColdStart(verdict, log.Options);
            lock (_lock)
            {
                // The burst's verdict, for its late callers: the wave's, judged before any later wave ends.
                _burstSeen = _burstSeen with { Judged = true, Cold = cold, WorkMs = ColdStartRule.WorkMs(verdict) };
            }

            // A wave named while its opens waited (ReportWaiting) is one finding: its verdict adds no second one.
            if (cold && !verdict.Wave.NamedWhileWaiting)
                ColdStartMessage.Report(log, verdict, connects);
        }
        finally
        {
            Interlocked.Decrement(ref _judging);
        }
    }
}
