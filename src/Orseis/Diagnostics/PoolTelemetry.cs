using System.Data.Common;
using Orseis.Diagnostics.Detectors;
using Orseis.Execution;

namespace Orseis.Diagnostics;

/// <summary>
/// The one small recorder every step of a call reports to: counts, the meter, the EventSource and the logger, and the
/// hand-off to each detector (one small class each, under <c>Detectors/</c>). Counts (in use, waiting, opens, commands,
/// peak demand) are plain interlocked integers and always kept; clock reads, events, holders and detectors happen only
/// when a listener is enabled or <see cref="DiagnosticsOptions.Detectors"/> asks for them. Time is read through the
/// options' <see cref="TimeProvider"/>. Nothing here may throw into a query: each listener-facing step is guarded.
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage(
    "Design", "CA1031:Do not catch general exception types", Justification = "Diagnostics must not change what the query does.")]
internal sealed partial class PoolTelemetry : IDisposable
{
    private readonly DiagnosticsOptions _options;
    private readonly FindingKind _detectors;
    private readonly TimeProvider _time;
    private readonly AsyncLocal<FlowState?> _flow = new();
    private readonly long _created;
    private readonly FindingLog _log;
    private readonly HolderTable _holders;
    private readonly HoldTimes _holdTimes = new();
    private readonly ChurnDetector _churn;
    private readonly PhysicalConnections? _identities;
    private readonly SlowOpenDetector _slowOpen;
    private readonly SaturationDetector _saturation;
    private readonly PoolTimeoutDetector _poolTimeout;
    private readonly LockConflictDetector? _lockConflicts;
    private readonly ColdStarts? _coldStarts;
    private readonly ServerUnavailableDetector? _unavailable;
    private readonly HeldTooLongDetector _heldTooLong;
    private readonly ThreadPoolStarvationDetector? _starvation;
    private readonly PoolSizeAdvisor _poolSize;
    private long _opens;
    private long _commands;
    private long _inUse;
    private long _pending;
    private long _sessions;
    private long _timeouts;
    private long _reuseWaits;
    private long _peakInUse;
    private long _peakPending;
    private long _peakDemand;
    private long _demandSum;
    private long _demandSamples;
    private readonly ConnectWaves _waves = new();

    /// <summary>How long a first wave of connects is followed at most (<see cref="ColdStarts"/>).</summary>
    private static readonly TimeSpan FirstWaveLimit = TimeSpan.FromSeconds(30);
    private long _queuedEntries;

    public PoolTelemetry(
        string poolName, string systemName, int? maxPoolSize, DiagnosticsOptions options, ProviderPoolStats? providerPool = null, string? connectionString = null,
        string? blockingAsyncProvider = null)
    {
        PoolName = poolName;
        SystemName = systemName;
        MaxPoolSize = maxPoolSize;
        _options = options;
        _detectors = options.Detectors;
        _time = options.TimeProvider;
        _created = _time.GetTimestamp();
        ProviderPool = providerPool;
        Tags = [new("db.client.connection.pool.name", poolName), new("db.system.name", systemName)];
        OperationTags = [.. Tags, .. ProviderInfo.ServerAttributes(systemName, connectionString)];
        _log = new FindingLog(poolName, Tags, options, _time);
        _holders = new HolderTable(_time, maxPoolSize);
        _churn = new ChurnDetector(_log);
        _identities = providerPool is null && options.Detectors != FindingKind.None ? PhysicalConnections.For(systemName) : null;
        _slowOpen = new SlowOpenDetector(_log, providerPool is not null ? ConnectCount.ProviderMeter : _identities is not null ? ConnectCount.ConnectionId : ConnectCount.None);
        _saturation = new SaturationDetector(_log, maxPoolSize);
        _poolTimeout = new PoolTimeoutDetector(_log, maxPoolSize, Detecting(FindingKind.PoolTimeout));
        _heldTooLong = new HeldTooLongDetector(_log, _holders);
        _poolSize = new PoolSizeAdvisor(_log, maxPoolSize);
        _lockConflicts = Detecting(FindingKind.LockConflicts) ? new LockConflictDetector(_log, _time) : null;
        _coldStarts = Detecting(FindingKind.SlowOpen) ? new ColdStarts(_log, _slowOpen.Connects) : null;
        _unavailable = Detecting(FindingKind.ServerUnavailable) ? new ServerUnavailableDetector(_log) : null;
        if (Detecting(FindingKind.ThreadPoolStarvation))
        {
            _starvation = new ThreadPoolStarvationDetector(_log, blockingAsyncProvider);
            ThreadPoolProbe.Subscribe(_starvation);
        }

        OrseisMetrics.Register(this);
    }

    public string PoolName { get; }

    public string SystemName { get; }

    public int? MaxPoolSize { get; }

    /// <summary>What the provider's own meter says about this pool, when it has one and detectors are on.</summary>
    public ProviderPoolStats? ProviderPool { get; }

    /// <summary>The pool's tags: on every instrument.</summary>
    public KeyValuePair<string, object?>[] Tags { get; }

    /// <summary>
    /// <see cref="Tags"/> plus <c>server.address</c>, <c>server.port</c> and <c>db.namespace</c> where the connection
    /// string gives them: on <c>db.client.operation.duration</c>, as the OpenTelemetry database conventions ask.
    /// </summary>
    public KeyValuePair<string, object?>[] OperationTags { get; }

    public long Opens => Interlocked.Read(ref _opens);

    public long Commands => Interlocked.Read(ref _commands);

    public long InUse => Interlocked.Read(ref _inUse);

    public long Pending => Interlocked.Read(ref _pending);

    public long ActiveSessions => Interlocked.Read(ref _sessions);

    private static bool EventsOn => OrseisEventSource.Log.IsEnabled();

    /// <summary>Whether this step should read the clock: somebody listens or a detector needs durations.</summary>
    private bool Timed => _detectors != FindingKind.None || EventsOn || OrseisMetrics.TimingEnabled;

    private bool Detecting(FindingKind kind) => (_detectors & kind) != 0;

    /// <summary>
    /// Called by the public entry points before their async machinery starts, so the flow state set here lives in
    /// the caller's execution context and survives from one call to the next (the churn detector's "one logical flow").
    /// </summary>
    public void EnterFlow()
    {
        if ((_detectors & FindingKind.Churn) != 0 && _flow.Value is null)
            _flow.Value = new FlowState();
    }

    public OpenStart OpenStarting(bool async)
    {
        long pending = Interlocked.Increment(ref _pending);
        long inUse = Interlocked.Read(ref _inUse);
        long demand = inUse + pending;
        Peaks.Raise(ref _peakPending, pending);
        Peaks.Raise(ref _peakDemand, demand);
        if (!Timed)
            return default;
        long now = _time.GetTimestamp();
        long queuedEntries = MaxPoolSize is { } max && demand > max
            ? Interlocked.Increment(ref _queuedEntries)
            : Interlocked.Read(ref _queuedEntries);
        var start = new OpenStart(
            now, (int)inUse, (int)demand, ProviderPool?.PhysicalConnects ?? -1, ProviderPool?.CreateSeconds ?? 0, async,
            Detecting(FindingKind.Churn) ? _flow.Value : null, queuedEntries,
            FirstWave: _coldStarts is not null && _waves.InFirstWave(now, _time, FirstWaveLimit));
        if (EventsOn)
            Guard(static (self, pending) => OrseisEventSource.Log.OpenStart(self.PoolName, (int)self.InUse, (int)pending), pending);
        if (_detectors != FindingKind.None)
        {
            try
            {
                DetectOnOpenStart(start);
            }
            catch (Exception)
            {
            }
        }

        return start;
    }

    private void DetectOnOpenStart(in OpenStart start)
    {
        if (start.FirstWave)
            _coldStarts!.OnFirstWaveOpenStarting(_waves.AfterLoss);
        Interlocked.Add(ref _demandSum, start.Demand);
        Interlocked.Increment(ref _demandSamples);
        if (start.Flow is { } flow)
            _churn.OnOpenStarting(flow, start.Started);
        if (_starvation is { WantsCallSite: true } && Thread.CurrentThread.IsThreadPoolThread)
            _starvation.OnCallWhileStarving(start.Async);
    }

    /// <summary>
    /// An open completed: <paramref name="connection"/> is the opened connection, or null when <paramref name="error"/>
    /// failed it. Returns when (a timestamp, for <see cref="Acquired"/>), or 0 when nothing is timed.
    /// </summary>
    public long OpenCompleted(in OpenStart start, Exception? error, DbConnection? connection = null)
    {
        long pending = Interlocked.Decrement(ref _pending);
        if (error is null)
        {
            Interlocked.Increment(ref _opens);
            if (OrseisMetrics.Opens.Enabled)
                Guard(static (self, _) => OrseisMetrics.Opens.Add(1, self.Tags), 0);
        }

        if (start.Started == 0)
            return 0;
        long now = _time.GetTimestamp();
        TimeSpan elapsed = _time.GetElapsedTime(start.Started, now);
        if (OrseisMetrics.WaitTime.Enabled)
        {
            Guard(static (self, state) => OrseisMetrics.WaitTime.Record(
                state.elapsed.TotalSeconds, state.error is null ? self.Tags : WithError(self.Tags, state.error)), (elapsed, error));
        }

        if (EventsOn)
        {
            Guard(static (self, state) => OrseisEventSource.Log.OpenStop(
                self.PoolName, state.elapsed.TotalMilliseconds, state.error is null, (int)self.InUse, (int)state.pending), (elapsed, error, pending));
        }

        if (error is not null)
        {
            start.Flow?.Failed();
            if (start.FirstWave)
                _coldStarts!.OnFirstWaveOpenCompleted(start, null);
        }

        if (error is null && _detectors != FindingKind.None)
        {
            // Not through Guard: a generic step over a tuple of references runs shared code with run-time lookups, on every open.
            try
            {
                DetectOnOpenCompleted(start, elapsed, connection, now);
            }
            catch (Exception)
            {
            }
        }

        return now;
    }

    private void DetectOnOpenCompleted(in OpenStart start, TimeSpan elapsed, DbConnection? connection, long now)
    {
        _unavailable?.OnOpened();
        // The provider's meter counts physical connects (and times them); without one, a server-side connection id
        // never seen before says this open made a new connection.
        long connects = start.PhysicalConnects >= 0 && ProviderPool?.PhysicalConnects is { } connectsNow
            ? connectsNow - start.PhysicalConnects
            : connection is not null && _identities?.IsNew(connection) == true ? 1 : 0;
        double createMs = connects <= 0 ? 0 : ProviderPool is { } meter ? (meter.CreateSeconds - start.CreateSeconds) * 1000 : elapsed.TotalMilliseconds;
        bool othersQueued = Interlocked.Read(ref _queuedEntries) != start.QueuedEntries;
        var outcome = new OpenOutcome(elapsed, connects, createMs, start.Queued(MaxPoolSize), othersQueued);
        _saturation.OnOpenCompleted(start, outcome, Detecting(FindingKind.Saturation));
        bool afterFirstWave = _waves.After(start.Started);
        if (connects > 0)
            _waves.Connected(now);
        // How late the thread pool ran work during this open, read only for an open slow enough to judge. Sync opens
        // too: MySql.Data's synchronous Open blocks on tasks that need a pool thread to finish a connect.
        TimeSpan threadPoolDelay = elapsed > _options.SlowOpenFloor && (Detecting(FindingKind.SlowOpen) || start.FirstWave)
            ? ThreadPoolProbe.DelayWithin(elapsed)
            : TimeSpan.Zero;

        // A warm-up's opens make new connections on purpose (read only for an open slow enough to judge).
        if (Detecting(FindingKind.SlowOpen) && !(elapsed > _options.SlowOpenFloor && ColdStarts.InWarmUp.Value))
            _slowOpen.OnOpenCompleted(start, outcome, ProviderPool?.Idle, afterFirstWave, threadPoolDelay);
        if (start.FirstWave)
            _coldStarts!.OnFirstWaveOpenCompleted(start, outcome, threadPoolDelay);

        if (start.Flow is { } flow)
            _churn.OnOpenCompleted(flow, outcome, now);
    }

    /// <summary>
    /// Turns a provider's open timeout (waiting for the pool, or a connect that never completed, as
    /// <see cref="OpenFailure"/> read it) into a <see cref="PoolExhaustedException"/> that says which; null for any other
    /// failure. A failure to connect begins a new first wave of connects (<see cref="ConnectWaves"/>).
    /// </summary>
    public PoolExhaustedException? TranslateOpenFailure(in OpenFailure failure)
    {
        if (failure.FailedToConnect)
        {
            _waves.ConnectionsLost(); // the pool's connections may be gone too
            if (failure.ServerUnanswered)
                _unavailable?.OnConnectFailed(failure.Error); // a pooled connection found dead is replaced once, not an outage
        }
        OpenTimeout kind = failure.Timeout;
        Exception error = failure.Error;
        if (kind == OpenTimeout.None)
            return null;
        Interlocked.Increment(ref _timeouts);
        if (OrseisMetrics.Timeouts.Enabled)
            Guard(static (self, _) => OrseisMetrics.Timeouts.Add(1, self.Tags), 0);
        ProviderPool?.Refresh();
        return _poolTimeout.Translate(error, kind, (int)InUse, (int)Pending + 1, ProviderPool?.Idle, _holders.Longest());
    }

    public long CommandStarting(string sql)
    {
        Interlocked.Increment(ref _commands);
        if (OrseisMetrics.Commands.Enabled)
            Guard(static (self, _) => OrseisMetrics.Commands.Add(1, self.Tags), 0);
        if (!EventsOn && !OrseisMetrics.OperationDuration.Enabled)
            return 0;
        if (EventsOn)
            Guard(static (self, sql) => OrseisEventSource.Log.CommandStart(self.PoolName, self._options.CaptureCommandText ? sql : ""), sql);
        return _time.GetTimestamp();
    }

    /// <summary>
    /// A command finished. <paramref name="error"/> is what failed it where the caller saw it (a stream's iterator
    /// cannot catch around its yields, so a failed stream passes none and is tagged <c>error.type=_OTHER</c>).
    /// </summary>
    public void CommandCompleted(long started, bool succeeded, Exception? error = null)
    {
        if (started == 0)
            return;
        TimeSpan elapsed = _time.GetElapsedTime(started);
        if (OrseisMetrics.OperationDuration.Enabled)
        {
            Guard(static (self, state) => OrseisMetrics.OperationDuration.Record(
                state.elapsed.TotalSeconds, state.succeeded ? self.OperationTags : WithError(self.OperationTags, state.error)), (elapsed, succeeded, error));
        }

        if (EventsOn)
            Guard(static (self, state) => OrseisEventSource.Log.CommandStop(self.PoolName, state.elapsed.TotalMilliseconds, state.succeeded), (elapsed, succeeded));
        if (error is ConnectionBrokenException)
            _waves.ConnectionsLost();
    }

    /// <summary>A buffered call's statement failed with <paramref name="error"/>: lock conflicts are counted (failure path only).</summary>
    public void CommandFailed(string sql, Exception error) =>
        _lockConflicts?.OnFailure(error, _options.CaptureCommandText ? sql : null);

    /// <summary>
    /// <paramref name="tags"/> with <c>error.type</c> for a failure: the SQLSTATE a provider reports
    /// (<see cref="DbException.SqlState"/>: Npgsql, MySqlConnector), also as <c>db.response.status_code</c>; otherwise
    /// the exception's full type name; <c>_OTHER</c> when the failure is not known. Never a message or a value.
    /// Allocates, on the failure path only.
    /// </summary>
    internal static KeyValuePair<string, object?>[] WithError(KeyValuePair<string, object?>[] tags, Exception? error)
    {
        if (error is DbException { SqlState: { Length: > 0 } state })
            return [.. tags, new("error.type", state), new("db.response.status_code", state)];
        return [.. tags, new("error.type", error?.GetType().FullName ?? "_OTHER")];
    }

    public long ReuseWaitStarting()
    {
        Interlocked.Increment(ref _reuseWaits);
        if (OrseisMetrics.ReuseWaits.Enabled)
            Guard(static (self, _) => OrseisMetrics.ReuseWaits.Add(1, self.Tags), 0);
        return OrseisMetrics.ReuseWaitTime.Enabled ? _time.GetTimestamp() : 0;
    }

    public void ReuseWaitCompleted(long waitStarted)
    {
        if (waitStarted == 0)
            return;
        Guard(static (self, started) => OrseisMetrics.ReuseWaitTime.Record(self._time.GetElapsedTime(started).TotalSeconds, self.Tags), waitStarted);
    }

    public void SessionOpened() => Interlocked.Increment(ref _sessions);

    public void SessionClosed() => Interlocked.Decrement(ref _sessions);

    public void Dispose()
    {
        if (_starvation is not null)
            ThreadPoolProbe.Unsubscribe(_starvation);
        OrseisMetrics.Unregister(this);
    }

    /// <summary>Runs a listener-facing step; a listener or logger that throws must never break a query.</summary>
    private void Guard<TState>(Action<PoolTelemetry, TState> step, TState state)
    {
        try
        {
            step(this, state);
        }
        catch (Exception)
        {
        }
    }
}
