using System.Globalization;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using Orseis.Diagnostics.Replay;

namespace Orseis.Trace;

/// <summary>
/// Turns EventPipe events into Orseis values: the meters' values published by the runtime's
/// <c>System.Diagnostics.Metrics</c> provider, the <c>Orseis</c> EventSource's events, and the runtime's thread-pool
/// adjustments. Used on a live session and on a <c>.nettrace</c> file alike.
/// </summary>
public sealed class OrseisEventDecoder
{
    internal const string MetricsProvider = "System.Diagnostics.Metrics";

    /// <summary>The meters the tool reads: Orseis', the runtime's (thread pool) and the providers' own pool meters.</summary>
    internal static readonly string[] Meters = ["Orseis", "System.Runtime", "Npgsql", "MySqlConnector"];

    private readonly string? _sessionId;

    /// <summary>Decodes the events of <paramref name="source"/>; metric values only of <paramref name="sessionId"/> when given.</summary>
    /// <param name="source">A TraceEvent source: a live EventPipe stream or a file.</param>
    /// <param name="sessionId">The metrics provider's SessionId argument to keep, or null for every session's.</param>
    public OrseisEventDecoder(TraceEventDispatcher source, string? sessionId = null)
    {
        ArgumentNullException.ThrowIfNull(source);
        _sessionId = sessionId;
        source.Dynamic.All += OnEvent;
        source.Clr.ThreadPoolWorkerThreadAdjustmentAdjustment += OnAdjustment;
    }

    /// <summary>Called for each published metric value of the meters the tool reads.</summary>
    public event Action<MetricValue>? Metric;

    /// <summary>Called for each detector finding.</summary>
    public event Action<FindingEvent>? Finding;

    /// <summary>Called for each open, command and release event.</summary>
    public event Action<PoolEvent>? PoolEvent;

    /// <summary>Called for each of the detectors' facts (keyword 0x10), its fields copied out of the reused TraceEvent.</summary>
    internal event Action<RecordedFact>? Fact;

    /// <summary>How many of the detectors' facts the decoder saw.</summary>
    public int Facts { get; private set; }

    /// <summary>Called when the runtime changes the thread pool's worker count.</summary>
    public event Action<ThreadPoolAdjustment>? ThreadPool;

    /// <summary>Called for every Orseis event but findings: the time, the event name and its payload as <c>name=value</c> text.</summary>
    public event Action<DateTime, string, string>? OtherEvent;

    /// <summary>How many events the decoder saw from the Orseis EventSource and the metrics provider.</summary>
    public int OrseisEvents { get; private set; }

    private void OnAdjustment(ThreadPoolWorkerThreadAdjustmentTraceData e) =>
        ThreadPool?.Invoke(new ThreadPoolAdjustment(e.TimeStamp, (int)e.NewWorkerThreadCount, e.Reason.ToString()));

    private void OnEvent(TraceEvent e)
    {
        if (e.ProviderName == "Orseis")
        {
            OrseisEvents++;
            OnOrseisEvent(e);
            return;
        }

        if (e.ProviderName != MetricsProvider || (_sessionId is not null && Text(e, "sessionId") != _sessionId))
            return;
        string meter = Text(e, "meterName");
        if (!Meters.Contains(meter, StringComparer.Ordinal))
            return;
        if (meter == "Orseis")
            OrseisEvents++;
        string instrument = Text(e, "instrumentName");
        if (meter == "Orseis")
            instrument = ConventionalName(instrument);
        string tags = Text(e, "tags");
        MetricValue? value = e.EventName switch
        {
            // System.Runtime's thread-pool figures are observable counters whose current value is what counts.
            "CounterRateValuePublished" when meter == "System.Runtime" =>
                new(instrument, "Value", Number(e, "value"), tags, "", meter, e.TimeStamp),
            "CounterRateValuePublished" => new(instrument, "Rate", Number(e, "rate"), tags, "", meter, e.TimeStamp),
            "UpDownCounterRateValuePublished" => new(instrument, "Value", Number(e, "value"), tags, "", meter, e.TimeStamp),
            "GaugeValuePublished" => new(instrument, "Value", Number(e, "lastValue"), tags, "", meter, e.TimeStamp),
            "HistogramValuePublished" => new(instrument, "Histogram", Number(e, "count"), tags, Text(e, "quantiles"), meter, e.TimeStamp),
            _ => null,
        };
        if (value is not null)
            Metric?.Invoke(value);
    }

    private void OnOrseisEvent(TraceEvent e)
    {
        if (e.EventName == "Finding")
        {
            Finding?.Invoke(new FindingEvent(Text(e, "pool"), Text(e, "kind"), Text(e, "message"), Text(e, "figures"), e.TimeStamp));
            return;
        }

        if (RecordedFact.IsFact((int)e.ID))
        {
            Facts++;
            if (Fact is { } fact)
            {
                string[] names = e.PayloadNames;
                object?[] values = [.. Enumerable.Range(0, names.Length).Select(e.PayloadValue)];
                fact(new RecordedFact((int)e.ID, e.TimeStamp.ToUniversalTime(),
                    n => Array.IndexOf(names, n) is >= 0 and var i ? values[i] : null));
            }

            return;
        }

        if (e.EventName is not { Length: > 0 } name)
            return;
        string payload = string.Join(", ", e.PayloadNames.Select((n, i) => n + "=" + Payload(e, i)));
        OtherEvent?.Invoke(e.TimeStamp, name, payload);
        double duration = e.PayloadByName("durationMs") is { } d ? Convert.ToDouble(d, CultureInfo.InvariantCulture)
            : e.PayloadByName("heldMs") is { } h ? Convert.ToDouble(h, CultureInfo.InvariantCulture) : double.NaN;
        PoolEvent?.Invoke(new PoolEvent(e.TimeStamp, name, Text(e, "pool"), duration, Int(e, "inUse"), Int(e, "pending"), payload));
    }

    /// <summary>A payload field as text: numbers in the invariant culture, as the process wrote them.</summary>
    private static string Payload(TraceEvent e, int index) => e.PayloadValue(index) switch
    {
        double d => d.ToString("0.###", CultureInfo.InvariantCulture),
        IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
        var other => other?.ToString() ?? "",
    };

    private static string Text(TraceEvent e, string name) => e.PayloadByName(name)?.ToString() ?? "";

    private static int Int(TraceEvent e, string name) =>
        e.PayloadByName(name) is { } v ? Convert.ToInt32(v, CultureInfo.InvariantCulture) : -1;

    private static double Number(TraceEvent e, string name) =>
        double.TryParse(Text(e, name), NumberStyles.Float, CultureInfo.InvariantCulture, out double v) ? v : double.NaN;

    /// <summary>Reads a <c>.nettrace</c> file to its end, calling the decoder's events in the file's order.</summary>
    /// <param name="path">The trace file, such as one written by <c>orseis-trace collect</c> or <c>dotnet-trace collect</c>.</param>
    /// <param name="subscribe">Subscribes to the decoder's events before the file is read.</param>
    public static void ReadFile(string path, Action<OrseisEventDecoder> subscribe)
    {
        ArgumentNullException.ThrowIfNull(subscribe);
        using var source = new EventPipeEventSource(path);
        subscribe(new OrseisEventDecoder(source));
        source.Process();
    }

    /// <summary>
    /// Orseis publishes a pool's figures under <c>orseis.connection.*</c> (and a call's time under
    /// <c>orseis.operation.duration</c>) where the provider's own meter already uses the conventional names (Npgsql,
    /// MySqlConnector), so backends do not count them twice. The tool reads Orseis' own figures under one name either way.
    /// </summary>
    internal static string ConventionalName(string instrument) => instrument switch
    {
        "orseis.connection.count" or "orseis.connection.max" or "orseis.connection.pending_requests"
            or "orseis.connection.wait_time" or "orseis.connection.use_time" or "orseis.connection.timeouts" =>
            "db.client.connection." + instrument["orseis.connection.".Length..],
        "orseis.operation.duration" => "db.client.operation.duration",
        _ => instrument,
    };
}
