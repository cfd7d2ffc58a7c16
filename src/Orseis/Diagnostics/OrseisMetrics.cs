using System.Diagnostics.Metrics;

namespace Orseis.Diagnostics;

/// <summary>
/// The <c>Orseis</c> meter: OpenTelemetry database client names where one fits, <c>orseis.*</c> for the rest. Every
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
    public static readonly IReadOnlyList<double> OperationBuckets = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];

    /// <summary>
    /// Bucket advice for waits (Open, and ReuseConnection's wait for the shared connection): 10 µs to 10 s in 1-5
    /// steps. A pool hit costs microseconds to a few hundred (a reset round trip); a physical connect milliseconds; a
    /// saturated pool queues for a hold time or up to the pool timeout. With the SDK's default buckets (0 to 5 s first)
    /// every one of these would land in the first bucket.
    /// </summary>
    public static readonly IReadOnlyList<double> WaitBuckets = [0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];

    /// <summary>
    /// Bucket advice for <c>db.client.connection.use_time</c>: 100 µs (one call on a kept-alive pool) to 5 minutes (a
    /// long session, or a leak worth seeing).
    /// </summary>
    public static readonly IReadOnlyList<double> UseBuckets = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

    public static readonly Histogram<double> WaitTime = Meter.CreateHistogram(
        "db.client.connection.wait_time", "s", "The time it took to obtain an open connection (Open: pool wait, reset, physical connect).",
        tags: null, Advice(WaitBuckets));

    public static readonly Histogram<double> UseTime = Meter.CreateHistogram(
        "db.client.connection.use_time", "s", "The time between obtaining a connection and giving it back.", tags: null, Advice(UseBuckets));

    public static readonly Histogram<double> OperationDuration = Meter.CreateHistogram(
        "db.client.operation.duration", "s", "Duration of database client operations (one command).", tags: null, Advice(OperationBuckets));

    public static readonly Counter<long> Timeouts = Meter.CreateCounter<long>(
        "db.client.connection.timeouts", "{timeout}", "Opens that timed out waiting for a pooled connection.");

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
        Meter.CreateObservableUpDownCounter("db.client.connection.count", ObserveCount, "{connection}",
            "Connections held by Orseis (state=used); state=idle where the provider reports it.");
        Meter.CreateObservableUpDownCounter("db.client.connection.pending_requests", () => Observe(p => p.Pending), "{request}",
            "Callers inside Open right now.");
        Meter.CreateObservableUpDownCounter("db.client.connection.max", ObserveMax, "{connection}",
            "Max Pool Size from the connection string or the provider's default, where known.");
        Meter.CreateObservableUpDownCounter("orseis.sessions.active", () => Observe(p => p.ActiveSessions), "{session}",
            "Open Orseis sessions.");
        Meter.CreateObservableGauge("orseis.connection.opens_per_command", ObserveOpensPerCommand, "{open}",
            "Opens per command since the pool was created: 1 is open-per-call, near 0 is reuse.");
    }

    private static InstrumentAdvice<double> Advice(IReadOnlyList<double> buckets) => new() { HistogramBucketBoundaries = buckets };

    /// <summary>True when a listener wants any timed figure.</summary>
    public static bool TimingEnabled => WaitTime.Enabled || UseTime.Enabled || OperationDuration.Enabled || ReuseWaitTime.Enabled;

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

    private static IEnumerable<Measurement<long>> ObserveCount()
    {
        foreach (PoolTelemetry pool in Snapshot())
        {
            yield return new Measurement<long>(pool.InUse, [.. pool.Tags, new("db.client.connection.state", "used")]);
            pool.ProviderPool?.Refresh(); // the provider's own observable counts, read through Orseis' listener
            if (pool.ProviderPool?.Idle is { } idle)
                yield return new Measurement<long>(idle, [.. pool.Tags, new("db.client.connection.state", "idle")]);
        }
    }

    private static IEnumerable<Measurement<long>> ObserveMax() =>
        Snapshot().Where(p => p.MaxPoolSize is not null).Select(p => new Measurement<long>(p.MaxPoolSize!.Value, p.Tags));

    private static IEnumerable<Measurement<double>> ObserveOpensPerCommand() =>
        Snapshot().Where(p => p.Commands > 0).Select(p => new Measurement<double>((double)p.Opens / p.Commands, p.Tags));
}
