using System.Data.Common;
using System.Diagnostics.Metrics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics;

/// <summary>
/// The one small recorder every step of a call reports to: counts, the meter, the EventSource and the logger, and the
/// facts of each step (an open's start, completion or failure, a hold, a release, a failed statement), recorded once
/// and handed to every detector behind <see cref="PoolObserver"/> (one small class each, under <c>Detectors/</c>, made
/// by <see cref="PoolObservers"/>). Counts (in use, waiting, opens, commands, peak demand) are plain interlocked integers
/// and always kept; clock reads, events, holders and detectors happen only when a listener is enabled or
/// <see cref="DiagnosticsOptions.Detectors"/> asks for them. Time is read through the options' <see cref="TimeProvider"/>.
/// Nothing here may throw into a query: each listener-facing step is guarded.
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
    private readonly double _ticksPerTimestamp;
    private readonly FindingLog _log;
    private readonly HolderTable _holders;
    private readonly HoldKinds _kinds = new();
    private readonly PhysicalConnections? _identities;
    private readonly ConnectWaves _waves = new();
    private readonly ConnectsAnswered _answered = new();
    private readonly PoolObservers _observers;
    private readonly PoolInstruments _instruments;
    private readonly Histogram<double> _duration;
    private readonly OperationTagSets _operations;
    private long _opens;
    private long _commands;

    /// <summary>
    /// Two counts in one word, so that an open reads both at one instant (<see cref="OpenStarting"/>): the connections taken
    /// from the pool (held by calls or parked in scopes) in the high half, the callers inside Open in the low half. Read
    /// apart, an open that completed between the two reads was counted twice, inside Open and holding: 170 callers were
    /// once 175 wanting a connection against Max Pool Size 170, a false Saturation (issue 45).
    /// </summary>
    private long _counts;
    private long _sessions;
    private long _timeouts;
    private long _reuseWaits;
    private long _peakInUse;
    private long _peakPending;
    private long _peakDemand;
    private long _queuedEntries;
    private readonly string? _providerSpans;
    private readonly bool _hearsStatements;
    private readonly RepeatedStatementDetector? _statementObserver;
    private readonly HeldTooLongDetector? _acquireObserver;

    public PoolTelemetry(
        string poolName, string systemName, int? maxPoolSize, DiagnosticsOptions options, ProviderPoolStats? providerPool = null,
        string? connectionString = null, string? blockingAsyncProvider = null,
        ProviderInstruments providerInstruments = ProviderInstruments.None, string? providerSpans = null,
        ProviderTraits? traits = null)
    {
        _providerSpans = providerSpans;
        PoolName = poolName;
        SystemName = systemName;
        MaxPoolSize = maxPoolSize;
        _options = options;
        _detectors = options.Detectors;
        _time = options.TimeProvider;
        _created = _time.GetTimestamp();
        _ticksPerTimestamp = (double)TimeSpan.TicksPerSecond / _time.TimestampFrequency;
        ProviderPool = providerPool;
        Tags = [new("db.client.connection.pool.name", poolName), new("db.system.name", systemName)];
        UsedTags = [.. Tags, new("db.client.connection.state", "used")];
        OperationTags = [.. Tags, .. ProviderInfo.ServerAttributes(systemName, connectionString)];
        _operations = new OperationTagSets(OperationTags);
        OwnNamedPool = (providerInstruments & ProviderInstruments.Pool) != 0;
        _instruments = OwnNamedPool ? OrseisMetrics.OwnNames : OrseisMetrics.Conventional;
        _duration = (providerInstruments & ProviderInstruments.OperationDuration) != 0
            ? OrseisMetrics.OwnOperationDuration
            : OrseisMetrics.OperationDuration;
        _log = new FindingLog(poolName, Tags, options, _time);
        _holders = new HolderTable(_time, maxPoolSize);
        _identities = providerPool is null && options.Detectors != FindingKind.None
            ? PhysicalConnections.For(traits ?? ProviderTraits.OfSystem(systemName))
            : null;
        ConnectCount connects = providerPool is not null ? ConnectCount.ProviderMeter
            : _identities is not null ? ConnectCount.ConnectionId
            : ConnectCount.None;
        _observers = PoolObservers.For(new ObserverContext(_log, maxPoolSize, _holders, connects, providerPool, blockingAsyncProvider));
        _hearsStatements = Needs(CostlyFacts.Statements);
        // The one observer of statements, traced or not (the repeated-statement detector), is called directly: a statement
        // with arguments then pays no dispatch (the list of the moment, its loop and a virtual call).
        _statementObserver = _observers.Quiet.StatementEnded is [RepeatedStatementDetector only]
                             && _observers.Traced.StatementEnded is [var traced] && ReferenceEquals(only, traced)
            ? only
            : null;
        // Likewise the one observer of a hold's start while nobody traces (the held-too-long detector: its scan's clock),
        // called directly on every timed hold, an open per call's and a scope call's: no list, no loop, no virtual call.
        _acquireObserver = _observers.Quiet.Acquired is [HeldTooLongDetector heldTooLong] ? heldTooLong : null;
        OrseisMetrics.Register(this);
    }

    public string PoolName { get; }

    public string SystemName { get; }

    public int? MaxPoolSize { get; }

    /// <summary>What the provider's own meter says about this pool, when it has one and detectors are on.</summary>
    public ProviderPoolStats? ProviderPool { get; }

    /// <summary>The pool's tags: on every instrument.</summary>
    public KeyValuePair<string, object?>[] Tags { get; }

    /// <summary><see cref="Tags"/> with <c>db.client.connection.state=used</c>: Orseis' connection count.</summary>
    public KeyValuePair<string, object?>[] UsedTags { get; }

    /// <summary>
    /// Whether this pool's instruments go under <c>orseis.connection.*</c> because its provider's meter publishes the
    /// conventional ones (<see cref="ProviderInstruments.Pool"/>).
    /// </summary>
    public bool OwnNamedPool { get; }

    /// <summary>
    /// <see cref="Tags"/> plus <c>server.address</c>, <c>server.port</c> and <c>db.namespace</c> where the connection
    /// string gives them: on <c>db.client.operation.duration</c>, as the OpenTelemetry database conventions ask.
    /// </summary>
    public KeyValuePair<string, object?>[] OperationTags { get; }

    public long Opens => Interlocked.Read(ref _opens);

    public long Commands => Interlocked.Read(ref _commands);

    /// <summary>Connections held by calls now: those taken from the pool less those parked in scopes (<see cref="ParkedNow"/>).</summary>
    public long InUse => Math.Max(0, TakenOf(Interlocked.Read(ref _counts)) - Interlocked.Read(ref _parked));

    public long Pending => PendingOf(Interlocked.Read(ref _counts));

    public long ActiveSessions => Interlocked.Read(ref _sessions);

    private static bool EventsOn => OrseisEventSource.Log.IsEnabled();

    /// <summary>Whether this step should read the clock: somebody listens or a detector needs durations.</summary>
    private bool Timed => _detectors != FindingKind.None || EventsOn || OrseisMetrics.TimingEnabled;

    /// <summary>Whether the observers hear each call's facts: while a detector is on.</summary>
    private bool Observed => _detectors != FindingKind.None;

    /// <summary>
    /// The time from <paramref name="start"/> to <paramref name="end"/>, as <see cref="TimeProvider.GetElapsedTime(long, long)"/>
    /// computes it, without its two virtual calls on every step (a clock's frequency does not change).
    /// </summary>
    private TimeSpan Elapsed(long start, long end) => new((long)((end - start) * _ticksPerTimestamp));

    /// <summary>
    /// Whether an observer follows statements with arguments (the binder then takes their print: <see cref="ArgumentPrint"/>).
    /// </summary>
    public bool HearsStatements => _hearsStatements;

    /// <summary>Whether an observer needs <paramref name="fact"/> recorded.</summary>
    private bool Needs(CostlyFacts fact) => (_observers.Needs & fact) != 0;

    /// <summary>
    /// Called by the public entry points before their async machinery starts, so the flow state set here lives in
    /// the caller's execution context and survives from one call to the next (the churn detector's "one logical flow").
    /// Returns that flow (null when no observer follows flows), for the caller to hand to the open it may make
    /// (<see cref="OpenStarting"/>): the same object the open would read from the <see cref="AsyncLocal{T}"/> again, since
    /// only this method sets it and the open runs in the caller's context or one that flowed from it.
    /// </summary>
    public FlowState? EnterFlow()
    {
        if (!Needs(CostlyFacts.Flow))
            return null;
        return _flow.Value ?? (_flow.Value = new FlowState());
    }

    /// <summary>
    /// A command starts on the connection held as <paramref name="hold"/>: with a detector on, the hold is labelled with
    /// its statement's kind (the pool-size advice prices each kind of hold at its own uncontended time). Returns the
    /// timestamp to give <see cref="CommandCompleted"/>, 0 when nothing times it. <paramref name="command"/> is given only
    /// for a call with arguments (one without binds no parameter, and asking a command for its parameters may make them).
    /// <paramref name="scope"/> is the lease's holder in a scope, as the call has it: its slot is read only for a statement
    /// followed (a caller that read it, a null check and a field, made every session call dearer under the gate).
    /// </summary>
    /// <param name="sql">The statement's text.</param>
    /// <param name="hold">The connection's hold.</param>
    /// <param name="scope">The lease's holder in a scope.</param>
    /// <param name="command">The command, for a call with arguments.</param>
    /// <param name="arguments">How many parameters the binder added, when it counted them (<see cref="ArgumentPrint"/>);
    /// -1 to ask the command.</param>
    public long CommandStarting(
        string sql, int hold = HolderTable.NoHold, ScopeConnection? scope = null, DbCommand? command = null, int arguments = -1)
    {
        Interlocked.Increment(ref _commands);
        if (Observed && _holders.Unlabelled(hold))
            _holders.LabelUnlabelled(hold, _kinds.Of(sql)); // a session's later calls skip the text lookup
        if (OrseisMetrics.Commands.Enabled)
            Guard(static (self, _) => OrseisMetrics.Commands.Add(1, self.Tags), 0);
        // A statement without arguments is never a repetition's (a poll, a probe): it is not timed for one.
        bool statement = _hearsStatements && command is not null && (arguments >= 0 ? arguments : command.Parameters.Count) != 0;
        if (statement && RepeatedStatementDetector.SitesWanted)
            StatementStarting(sql, hold, scope?.Slot);
        if (!EventsOn && !_duration.Enabled && !statement)
            return 0;
        if (EventsOn)
            Guard(static (self, sql) => OrseisEventSource.Log.CommandStart(self.PoolName, self.Captured(sql) ?? ""), sql);
        return Now();
    }

    /// <summary>
    /// A command finished. <paramref name="error"/> is what failed it where the caller saw it (a stream's iterator
    /// cannot catch around its yields, so a failed stream passes none and is tagged <c>error.type=_OTHER</c>).
    /// <paramref name="sql"/> and <paramref name="args"/> are the call's, for its operation's attributes
    /// (<see cref="OperationTagSets"/>); never recorded as text. <paramref name="hold"/> is the connection's hold: outside
    /// a scope a statement's unit is the flow that acquired it (read there, not from the <see cref="AsyncLocal{T}"/> again).
    /// </summary>
    /// <param name="started">What <see cref="CommandStarting"/> returned.</param>
    /// <param name="succeeded">Whether the command succeeded.</param>
    /// <param name="error">What failed it, when known.</param>
    /// <param name="sql">The call's text.</param>
    /// <param name="args">The call's arguments.</param>
    /// <param name="command">The command, for a call with arguments.</param>
    /// <param name="scope">The statement's scope.</param>
    /// <param name="hold">The connection's hold.</param>
    /// <param name="print">The arguments' print taken by the binder (<see cref="ArgumentPrint.Unknown"/>: read the command).</param>
    public void CommandCompleted(
        long started, bool succeeded, Exception? error = null, string? sql = null, object? args = null, DbCommand? command = null,
        ScopeSlot? scope = null, int hold = HolderTable.NoHold, ArgumentPrint print = default)
    {
        // A broken connection is a lost one whether or not the command was timed (detectors run without listeners).
        if (error is ConnectionBrokenException)
            _waves.ConnectionsLost();
        if (started == 0)
            return;
        long now = Now();
        if (_hearsStatements && sql is not null && command is not null)
            StatementEnded(sql, command, scope, hold, started, now, succeeded, print);
        if (_duration.Enabled || EventsOn)
            CommandTimed(Elapsed(started, now), succeeded, error, sql, args);
    }

    /// <summary>A timed command's duration on the meter and the EventSource (only while one of them listens).</summary>
    private void CommandTimed(TimeSpan elapsed, bool succeeded, Exception? error, string? sql, object? args)
    {
        if (_duration.Enabled)
        {
            Guard(static (self, state) =>
            {
                KeyValuePair<string, object?>[] tags = self._operations.For(state.sql, state.args);
                self._duration.Record(state.elapsed.TotalSeconds, state.succeeded ? tags : WithError(tags, state.error));
            }, (elapsed, succeeded, error, sql, args));
        }

        if (EventsOn)
        {
            Guard(static (self, state) => OrseisEventSource.Log.CommandStop(
                self.PoolName, state.elapsed.TotalMilliseconds, state.succeeded), (elapsed, succeeded));
        }
    }

    /// <summary>A statement starts while the repeated-statement detector wants a call site: on the caller's stack.</summary>
    private void StatementStarting(string sql, int hold, ScopeSlot? scope) =>
        Tell<StatementStart, StatementStartingStep>(
            _observers.StatementStarting, new StatementStart(sql, scope, scope is null ? FlowOf(hold) : null));

    /// <summary>
    /// The flow of a statement on <paramref name="hold"/>: the one that acquired it (a call's open, a session's), read from
    /// the holder table; the caller's own for a connection shared by design (ReuseConnection) or not in the table.
    /// </summary>
    private FlowState? FlowOf(int hold) => _holders.TryFlowOf(hold, out FlowState? flow) ? flow : CurrentFlow();

    /// <summary>
    /// The caller's flow (<see cref="EnterFlow"/>). A method of its own, never inlined, so that the getter of the
    /// <see cref="AsyncLocal{T}"/> is inlined into it with its type known: called from a large method
    /// (<see cref="OpenStarting"/>), whose inlining budget it exceeds, the getter is the precompiled code shared by reference
    /// types, which looks the type up through a runtime helper on every read (128 instructions a read under the gate,
    /// against 75 here: docs/results/overhead/2026-11-30c-detector-cost-optimised.md).
    /// </summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private FlowState? CurrentFlow() => _flow.Value;

    /// <summary>A statement with arguments ended: its run told to the observers of statements, in its unit of work.</summary>
    private void StatementEnded(
        string sql, DbCommand command, ScopeSlot? scope, int hold, long started, long now, bool succeeded, ArgumentPrint print)
    {
        FlowState? flow = scope is null ? FlowOf(hold) : null;
        if (_statementObserver is { } only)
        {
            try
            {
                only.Ended(sql, command, scope, flow, started, now, succeeded, print);
            }
            catch (Exception)
            {
            }

            return;
        }

        Tell<StatementRun, StatementEndedStep>(
            _observers.StatementEnded, new StatementRun(sql, command, scope, flow, started, now, succeeded));
    }

    /// <summary>A scope whose statements were followed ended (<see cref="ScopeSlot.EndAsync"/>, in its flow).</summary>
    public void ScopeEnded(StatementRepeats unit)
    {
        try
        {
            foreach (PoolObserver observer in _observers.UnitEnded)
                observer.OnUnitEnded(unit);
        }
        catch (Exception)
        {
        }
    }

    /// <summary>A buffered call's statement failed with <paramref name="error"/> (failure path only).</summary>
    public void CommandFailed(string sql, Exception error)
    {
        if (Observed)
        {
            Tell<CommandFailure, CommandFailedStep>(_observers.CommandFailed, new CommandFailure(error, Captured(sql)));
        }
    }

    /// <summary>
    /// <paramref name="tags"/> with <c>error.type</c> for a failure: the SQLSTATE a provider reports
    /// (<see cref="DbException.SqlState"/>: Npgsql, MySqlConnector), also as <c>db.response.status_code</c>; otherwise
    /// the exception's full type name; <c>_OTHER</c> when the failure is not known. Never a message or a value.
    /// Allocates, on the failure path only.
    /// </summary>
    internal static KeyValuePair<string, object?>[] WithError(KeyValuePair<string, object?>[] tags, Exception? error)
    {
        if (error is null)
            return [.. tags, new("error.type", "_OTHER")];
        string type = DbErrorType.Of(error, out string? statusCode);
        return statusCode is null
            ? [.. tags, new("error.type", type)]
            : [.. tags, new("error.type", type), new("db.response.status_code", statusCode)];
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
        Guard(static (self, started) => OrseisMetrics.ReuseWaitTime.Record(
            self._time.GetElapsedTime(started).TotalSeconds, self.Tags), waitStarted);
    }

    public void SessionOpened() => Interlocked.Increment(ref _sessions);

    public void SessionClosed() => Interlocked.Decrement(ref _sessions);

    public void Dispose()
    {
        foreach (PoolObserver observer in _observers.All)
            (observer as IDisposable)?.Dispose();
        OrseisMetrics.Unregister(this);
    }

    /// <summary>The statement's text when it may be captured (events, detectors), else null.</summary>
    private string? Captured(string sql) => _options.CaptureCommandText ? sql : null;

    /// <summary>
    /// Hands <paramref name="fact"/> to <paramref name="observers"/>, in order; one that throws ends the step, never the query.
    /// </summary>
    private static void Tell<TFact, TStep>(PoolObserver[] observers, in TFact fact)
        where TFact : struct
        where TStep : struct, IStep<TFact>
    {
        try
        {
            foreach (PoolObserver observer in observers)
                default(TStep).Tell(observer, fact);
        }
        catch (Exception)
        {
        }
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

    /// <summary>One connection taken, in <see cref="_counts"/>.</summary>
    private const long OneTaken = 1L << 32;

    /// <summary>The connections taken from the pool, in <paramref name="counts"/> (<see cref="_counts"/>).</summary>
    private static long TakenOf(long counts) => counts >> 32;

    /// <summary>The callers inside Open, in <paramref name="counts"/> (<see cref="_counts"/>).</summary>
    private static long PendingOf(long counts) => (uint)counts;
}
