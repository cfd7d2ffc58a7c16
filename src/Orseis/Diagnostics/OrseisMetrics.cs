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

    public static readonly Histogram<double> WaitTime = Meter.CreateHistogram<double>(
        "db.client.connection.wait_time", "s", "The time it took to obtain an open connection (Open: pool wait, reset, physical connect).");

    public static readonly Histogram<double> UseTime = Meter.CreateHistogram<double>(
        "db.client.connection.use_time", "s", "The time between obtaining a connection and giving it back.");

    public static readonly Histogram<double> OperationDuration = Meter.CreateHistogram<double>(
        "db.client.operation.duration", "s", "Duration of database client operations (one command).");

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

    public static readonly Histogram<double> ReuseWaitTime = Meter.CreateHistogram<double>(
        "orseis.reuse.wait_time", "s", "How long ReuseConnection calls waited for the shared connection.");

    static OrseisMetrics()
    {
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
