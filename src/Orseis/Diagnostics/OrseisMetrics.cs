using System.Diagnostics.Metrics;

namespace Orseis.Diagnostics;

/// <summary>
/// The <c>Orseis</c> meter: OpenTelemetry database client names where one fits, <c>orseis.*</c> for the rest. A
/// conventional instrument has one publisher per pool: where the provider's own meter publishes it
/// (<see cref="ProviderInstruments"/>), a pool's figure goes under the <c>orseis.*</c> twin instead
/// (<see cref="OwnNames"/>, <see cref="OwnOperationDuration"/>), so a backend summing it counts nothing twice. Every
/// measurement carries <c>db.client.connection.pool.name</c> and <c>db.system.name</c>. Observable instruments read the
/// counts each live pool keeps anyway, so they cost nothing until collected.
/// </summary>
internal static class OrseisMetrics
{
    public const string MeterName = "Orseis";

    private static readonly List<PoolTelemetry> Pools = [];

    public static readonly Meter Meter = new(MeterName, typeof(OrseisMetrics).Assembly.GetName().Version?.ToString(3));

    /// <summary>
    /// Bucket advice for <c>db.client.operation.duration</c>: the boundaries the OpenTelemetry database semantic
    /// conventions give for it, 1 ms to 10 s.
    /// </summary>
    /// <remarks>The buckets are arrays, not collection expressions typed IReadOnlyList: that is a list type the compiler writes
    /// into Orseis, whose methods the JIT compiles at every process's first database (issue 44).</remarks>
    public static readonly double[] OperationBuckets = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];

    /// <summary>
    /// Bucket advice for waits (Open, and ReuseConnection's wait for the shared connection): 10 µs to 10 s in 1-5
    /// steps. A pool hit costs microseconds to a few hundred (a reset round trip); a physical connect milliseconds; a
    /// saturated pool queues for a hold time or up to the pool timeout. With the SDK's default buckets (0 to 5 s first)
    /// every one of these would land in the first bucket.
    /// </summary>
    public static readonly double[] WaitBuckets =
        [0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];

    /// <summary>
    /// Bucket advice for <c>db.client.connection.use_time</c>: 100 µs (one call on a kept-alive pool) to 5 minutes (a
    /// long session, or a leak worth seeing).
    /// </summary>
    public static readonly double[] UseBuckets = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

    /// <summary>The pool instruments under their conventional names: for pools whose provider publishes none itself.</summary>
    public static readonly PoolInstruments Conventional = new("db.client.connection");

    /// <summary>
    /// The same instruments under <c>orseis.connection.*</c>: for pools whose provider's own meter publishes the pool
    /// (<see cref="ProviderInstruments.Pool"/>), so that a conventional instrument has one publisher per pool.
    /// </summary>
    public static readonly PoolInstruments OwnNames = new("orseis.connection");

    public static readonly Histogram<double> OperationDuration = Meter.CreateHistogram(
        "db.client.operation.duration", "s", "Duration of database client operations (one command).", tags: null, Advice(OperationBuckets));

    /// <summary><c>db.client.operation.duration</c> for pools whose provider publishes it itself (Npgsql).</summary>
    public static readonly Histogram<double> OwnOperationDuration = Meter.CreateHistogram(
        "orseis.operation.duration", "s",
        "Duration of one command as Orseis timed it, where the provider publishes db.client.operation.duration itself.",
        tags: null, Advice(OperationBuckets));

    public static readonly Counter<long> Opens = Meter.CreateCounter<long>(
        "orseis.connection.opens", "{open}", "Connection opens (pool checkouts) made by Orseis.");

    public static readonly Counter<long> Commands = Meter.CreateCounter<long>(
        "orseis.commands", "{command}", "Commands executed by Orseis.");

    public static readonly Counter<long> Findings = Meter.CreateCounter<long>(
        "orseis.findings", "{finding}", "Detector findings, tagged with orseis.finding.kind.");

    public static readonly Counter<long> ReuseWaits = Meter.CreateCounter<long>(
        "orseis.reuse.waits", "{wait}", "ReuseConnection calls that waited for the shared connection.");

    public static readonly Histogram<double> ReuseWaitTime = Meter.CreateHistogram(
        "orseis.reuse.wait_time", "s", "How long ReuseConnection calls waited for the shared connection.", tags: null, Advice(WaitBuckets));

    public static readonly Counter<long> ScopeReuses = Meter.CreateCounter<long>(
        "orseis.scope.reuses", "{call}", "Calls that took a connection parked by their ConnectionScope instead of opening one.");

    public static readonly Histogram<double> ParkedTime = Meter.CreateHistogram(
        "orseis.scope.parked_time", "s",
        "How long a connection sat parked in a ConnectionScope between two calls, or before going back to the pool.",
        tags: null, Advice(WaitBuckets));

    static OrseisMetrics()
    {
        Meter.CreateObservableUpDownCounter("orseis.scope.parked", () => Observe(p => p.ParkedNow), "{connection}",
            "Connections parked in ConnectionScopes now (out of the provider's pool, held by no call).");
        // Two calls, not a loop: a static constructor with a loop is compiled instrumented (tiered PGO), which costs the JIT
        // more at every process's first database (issue 44).
        CreatePoolGauges(own: false);
        CreatePoolGauges(own: true);
        Meter.CreateObservableUpDownCounter("orseis.sessions.active", () => Observe(p => p.ActiveSessions), "{session}",
            "Open Orseis sessions.");
        Meter.CreateObservableGauge("orseis.connection.opens_per_command", ObserveOpensPerCommand, "{open}",
            "Opens per command since the pool was created: 1 is open-per-call, near 0 is reuse.");
    }

    /// <summary>
    /// The observable pool instruments under <c>orseis.connection.*</c> (<paramref name="own"/>) or the conventional names.
    /// </summary>
    private static void CreatePoolGauges(bool own)
    {
        string prefix = own ? "orseis.connection" : "db.client.connection";
        Meter.CreateObservableUpDownCounter($"{prefix}.count", () => ObserveCount(own), "{connection}",
            "Connections held through Orseis (db.client.connection.state=used).");
        Meter.CreateObservableUpDownCounter($"{prefix}.pending_requests", () => Observe(p => p.Pending, own), "{request}",
            "Callers inside Open right now.");
        Meter.CreateObservableUpDownCounter($"{prefix}.max", () => ObserveMax(own), "{connection}",
            "Max Pool Size from the connection string or the provider's default, where known.");
    }

    private static InstrumentAdvice<double> Advice(IReadOnlyList<double> buckets) => new() { HistogramBucketBoundaries = buckets };

    /// <summary>True when a listener wants any timed figure.</summary>
    public static bool TimingEnabled =>
        Conventional.Timed || OwnNames.Timed || OperationDuration.Enabled || OwnOperationDuration.Enabled || ReuseWaitTime.Enabled;

    public static void Register(PoolTelemetry pool)
    {
        lock (Pools)
            Pools.Add(pool);
    }

    public static void Unregister(PoolTelemetry pool)
    {
        lock (Pools)
            Pools.Remove(pool);
    }

    private static PoolTelemetry[] Snapshot()
    {
        lock (Pools)
            return [.. Pools];
    }

    private static IEnumerable<Measurement<long>> Observe(Func<PoolTelemetry, long> value) =>
        Snapshot().Select(p => new Measurement<long>(value(p), p.Tags));

    /// <summary>The pools whose instruments go under <c>orseis.connection.*</c> (<paramref name="own"/>), or else the conventional names.
    /// </summary>
    private static IEnumerable<PoolTelemetry> Named(bool own) => Snapshot().Where(p => p.OwnNamedPool == own);

    private static IEnumerable<Measurement<long>> Observe(Func<PoolTelemetry, long> value, bool own) =>
        Named(own).Select(p => new Measurement<long>(value(p), p.Tags));

    // Connections held through Orseis. The provider's idle connections are not added: where the provider knows them, its
    // own meter publishes them, and a backend summing both would count them twice.
    private static IEnumerable<Measurement<long>> ObserveCount(bool own) =>
        Named(own).Select(p => new Measurement<long>(p.InUse, p.UsedTags));

    private static IEnumerable<Measurement<long>> ObserveMax(bool own) =>
        Named(own).Where(p => p.MaxPoolSize is not null).Select(p => new Measurement<long>(p.MaxPoolSize!.Value, p.Tags));

    private static IEnumerable<Measurement<double>> ObserveOpensPerCommand() =>
        Snapshot().Where(p => p.Commands > 0).Select(p => new Measurement<double>((double)p.Opens / p.Commands, p.Tags));
}
