using System.Collections.Concurrent;
using System.Data.Common;
using System.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Orseis.Diagnostics;

/// <summary>
/// The one small recorder every step of a call reports to. Counts (in use, waiting, opens, commands) are plain
/// interlocked integers and always kept; everything else (clock reads, events, stacks, detectors) happens only when a
/// listener is enabled or <see cref="DiagnosticsOptions.Detectors"/> asks for it. Nothing here may throw into a query:
/// each listener-facing step is guarded.
/// </summary>
internal sealed partial class PoolTelemetry : IDisposable
{
    private readonly DiagnosticsOptions _options;
    private readonly FindingKind _detectors;
    private readonly ConcurrentDictionary<DbConnection, Holder> _holders = new(ReferenceEqualityComparer.Instance);
    private readonly AsyncLocal<FlowState?> _flow = new();
    private readonly long _created = Stopwatch.GetTimestamp();
    private long _opens;
    private long _commands;
    private long _inUse;
    private long _pending;
    private long _sessions;
    private long _timeouts;
    private long _reuseWaits;
    private long _peakInUse;
    private long _peakPending;
    private bool _everHeld;

    public PoolTelemetry(
        string poolName, string systemName, int? maxPoolSize, DiagnosticsOptions options, ProviderPoolStats? providerPool = null, string? connectionString = null)
    {
        PoolName = poolName;
        SystemName = systemName;
        MaxPoolSize = maxPoolSize;
        _options = options;
        _detectors = options.Detectors;
        ProviderPool = providerPool;
        Tags = [new("db.client.connection.pool.name", poolName), new("db.system.name", systemName)];
        OperationTags = [.. Tags, .. Execution.ProviderInfo.ServerAttributes(systemName, connectionString)];
        _lastFinding = new long[8];
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

    public long OpenStarting(bool async)
    {
        long pending = Interlocked.Increment(ref _pending);
        UpdateMax(ref _peakPending, pending);
        if (!Timed)
            return 0;
        long now = Stopwatch.GetTimestamp();
        if (EventsOn)
            Guard(static (self, pending) => OrseisEventSource.Log.OpenStart(self.PoolName, (int)self.InUse, (int)pending), pending);
        if (_detectors != FindingKind.None)
            Guard(static (self, state) => self.DetectOnOpenStart(state.async, state.pending, state.now), (async, pending, now));
        return now;
    }

    public void OpenCompleted(long started, Exception? error)
    {
        long pending = Interlocked.Decrement(ref _pending);
        if (error is null)
        {
            Interlocked.Increment(ref _opens);
            if (OrseisMetrics.Opens.Enabled)
                Guard(static (self, _) => OrseisMetrics.Opens.Add(1, self.Tags), 0);
        }

        if (started == 0)
            return;
        TimeSpan elapsed = Stopwatch.GetElapsedTime(started);
        if (OrseisMetrics.WaitTime.Enabled)
            Guard(static (self, state) => OrseisMetrics.WaitTime.Record(
                state.elapsed.TotalSeconds, state.error is null ? self.Tags : WithError(self.Tags, state.error)), (elapsed, error));
        if (EventsOn)
        {
            Guard(static (self, state) => OrseisEventSource.Log.OpenStop(
                self.PoolName, state.elapsed.TotalMilliseconds, state.error is null, (int)self.InUse, (int)state.pending), (elapsed, error, pending));
        }

        if (error is null && _detectors != FindingKind.None)
            Guard(static (self, elapsed) => self.DetectOnOpenCompleted(elapsed), elapsed);
    }

    /// <summary>Turns a provider's pool timeout into a <see cref="PoolExhaustedException"/>; null for any other failure.</summary>
    public PoolExhaustedException? TranslateOpenFailure(Exception error)
    {
        if (!PoolTimeouts.IsPoolTimeout(error))
            return null;
        Interlocked.Increment(ref _timeouts);
        int inUse = (int)InUse;
        int waiting = (int)Pending + 1;
        (TimeSpan? held, string? where) = LongestHolder();
        string max = MaxPoolSize?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "unknown";
        string holder = held is { } h
            ? $" The longest current holder has had its connection for {h.TotalSeconds:0.###} s" +
              (where is null ? " (turn on FindingKind.HeldTooLong to record where connections are acquired)." : $", acquired at:{Environment.NewLine}{where}")
            : " Turn on DiagnosticsOptions.Detectors to track holders.";
        string message =
            $"Pool '{PoolName}' is exhausted: the provider timed out waiting for a free connection. At that moment this database held " +
            $"{inUse} connection(s), {waiting} caller(s) were waiting in Open, Max Pool Size is {max}.{holder} " +
            "Return connections sooner (dispose sessions and streams), raise Max Pool Size, or lower concurrency.";
        if (OrseisMetrics.Timeouts.Enabled)
            Guard(static (self, _) => OrseisMetrics.Timeouts.Add(1, self.Tags), 0);
        Guard(static (self, state) =>
        {
            if (self.Detecting(FindingKind.PoolTimeout))
            {
                self.Report(FindingKind.PoolTimeout, state.message, new Dictionary<string, double>
                {
                    ["inUse"] = state.inUse,
                    ["waiting"] = state.waiting,
                    ["maxPoolSize"] = self.MaxPoolSize ?? -1,
                    ["longestHeldMs"] = state.held?.TotalMilliseconds ?? -1,
                }, state.where, rateLimited: false);
            }
        }, (message, inUse, waiting, held, where));
        return new PoolExhaustedException(message, error, PoolName, inUse, waiting, MaxPoolSize, held, where);
    }

    /// <summary>The caller's stack, taken before an open is awaited, when the held-too-long detector will want it.</summary>
    public StackTrace? CaptureAcquirer() => Detecting(FindingKind.HeldTooLong) ? CallSites.Capture() : null;

    /// <summary>
    /// A connection was opened and is now held by <paramref name="owner"/> until <see cref="Released"/>;
    /// <paramref name="acquirer"/> is where (from <see cref="CaptureAcquirer"/>).
    /// </summary>
    public void Acquired(DbConnection connection, string owner, bool heldByDesign = false, StackTrace? acquirer = null)
    {
        long inUse = Interlocked.Increment(ref _inUse);
        UpdateMax(ref _peakInUse, inUse);
        if (!Timed)
            return;
        Guard(static (self, state) =>
        {
            // A connection held by design (ReuseConnection's shared one) is timed but never a leak suspect.
            self._holders[state.connection] = new Holder(Stopwatch.GetTimestamp(), state.owner, state.acquirer) { Reported = state.heldByDesign };
            Volatile.Write(ref self._everHeld, true);
            if (self.Detecting(FindingKind.HeldTooLong))
                self.DetectHeldTooLong();
        }, (connection, owner, heldByDesign, acquirer));
    }

    /// <summary>A connection went back to the pool.</summary>
    public void Released(DbConnection connection)
    {
        long inUse = Interlocked.Decrement(ref _inUse);
        // Until a holder was ever recorded there is nothing to remove; asking ConcurrentDictionary.IsEmpty instead
        // would take every lock of the dictionary on each release while nobody listens.
        if (!Volatile.Read(ref _everHeld) || !_holders.TryRemove(connection, out Holder? holder))
            return;
        TimeSpan held = Stopwatch.GetElapsedTime(holder.Started);
        RecordHold(held);
        if (OrseisMetrics.UseTime.Enabled)
            Guard(static (self, held) => OrseisMetrics.UseTime.Record(held.TotalSeconds, self.Tags), held);
        if (EventsOn)
            Guard(static (self, state) => OrseisEventSource.Log.Released(self.PoolName, state.held.TotalMilliseconds, (int)state.inUse), (held, inUse));
        if (Detecting(FindingKind.HeldTooLong))
        {
            Guard(static (self, state) =>
            {
                if (state.held > self._options.HeldTooLongThreshold && !state.holder.Reported)
                    self.ReportHeldTooLong(state.holder, state.held, stillHeld: false);
                self.DetectHeldTooLong();
            }, (holder, held));
        }
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
        return Stopwatch.GetTimestamp();
    }

    /// <summary>
    /// A command finished. <paramref name="error"/> is what failed it where the caller saw it (a stream's iterator
    /// cannot catch around its yields, so a failed stream passes none and is tagged <c>error.type=_OTHER</c>).
    /// </summary>
    public void CommandCompleted(long started, bool succeeded, Exception? error = null)
    {
        if (started == 0)
            return;
        TimeSpan elapsed = Stopwatch.GetElapsedTime(started);
        if (OrseisMetrics.OperationDuration.Enabled)
        {
            Guard(static (self, state) => OrseisMetrics.OperationDuration.Record(
                state.elapsed.TotalSeconds, state.succeeded ? self.OperationTags : WithError(self.OperationTags, state.error)), (elapsed, succeeded, error));
        }

        if (EventsOn)
            Guard(static (self, state) => OrseisEventSource.Log.CommandStop(self.PoolName, state.elapsed.TotalMilliseconds, state.succeeded), (elapsed, succeeded));
    }

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
        return OrseisMetrics.ReuseWaitTime.Enabled ? Stopwatch.GetTimestamp() : 0;
    }

    public void ReuseWaitCompleted(long waitStarted)
    {
        if (waitStarted == 0)
            return;
        Guard(static (self, started) => OrseisMetrics.ReuseWaitTime.Record(Stopwatch.GetElapsedTime(started).TotalSeconds, self.Tags), waitStarted);
    }

    public void SessionOpened() => Interlocked.Increment(ref _sessions);

    public void SessionClosed() => Interlocked.Decrement(ref _sessions);

    public void Dispose() => OrseisMetrics.Unregister(this);

    /// <summary>Runs a listener-facing step; a listener or logger that throws must never break a query.</summary>
    private void Guard<TState>(Action<PoolTelemetry, TState> step, TState state)
    {
        try
        {
            step(this, state);
        }
#pragma warning disable CA1031 // diagnostics must not change what the query does
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    private static void UpdateMax(ref long peak, long value)
    {
        long current = Volatile.Read(ref peak);
        while (value > current)
        {
            long seen = Interlocked.CompareExchange(ref peak, value, current);
            if (seen == current)
                return;
            current = seen;
        }
    }

    private (TimeSpan? Held, string? Where) LongestHolder()
    {
        Holder? oldest = null;
        foreach (Holder holder in _holders.Values)
        {
            if (oldest is null || holder.Started < oldest.Started)
                oldest = holder;
        }

        return oldest is null ? (null, null) : (Stopwatch.GetElapsedTime(oldest.Started), oldest.Stack);
    }

    private sealed class Holder(long started, string owner, StackTrace? trace)
    {
        public long Started { get; } = started;

        public string Owner { get; } = owner;

        private string? _stack;

        /// <summary>Where the connection was acquired, formatted on first use (most holders are never reported).</summary>
        public string? Stack => trace is null ? null : _stack ??= CallSites.Format(trace);

        public bool Reported { get; set; }
    }

    private sealed class FlowState
    {
        public long WindowStart;
        public int Opens;
        public bool Reported;
        public string? CallSite;
    }
}
