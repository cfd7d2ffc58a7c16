using System.Diagnostics.Tracing;
using System.Globalization;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Tracing;

namespace Orseis.Trace;

/// <summary>One published value of an instrument of the <c>Orseis</c> meter, as the runtime's MetricsEventSource sends it.</summary>
/// <param name="Instrument">The instrument's name, such as <c>orseis.connection.opens</c>.</param>
/// <param name="Kind">Rate (counters: the increase over the interval), Value (up-down counters, gauges) or Histogram.</param>
/// <param name="Value">The rate per interval, the current value, or for histograms the count in the interval.</param>
/// <param name="Tags">The measurement's tags as <c>key=value</c> pairs separated by commas.</param>
/// <param name="Detail">Histograms: the quantiles text (<c>0.5=...;0.95=...</c>); empty otherwise.</param>
public sealed record MetricValue(string Instrument, string Kind, double Value, string Tags, string Detail);

/// <summary>One <c>Finding</c> event of the <c>Orseis</c> EventSource.</summary>
/// <param name="Pool">The pool's name.</param>
/// <param name="Kind">The detector.</param>
/// <param name="Message">The readable message.</param>
/// <param name="Figures">The figures, <c>name=value;...</c>.</param>
public sealed record FindingEvent(string Pool, string Kind, string Message, string Figures);

/// <summary>
/// Turns EventPipe events into Orseis values: the <c>Orseis</c> meter's values published by the runtime's
/// <c>System.Diagnostics.Metrics</c> provider, and the <c>Orseis</c> EventSource's events. Used on a live session and on
/// a <c>.nettrace</c> file (from <c>dotnet-trace collect</c>) alike.
/// </summary>
public sealed class OrseisEventDecoder
{
    internal const string MetricsProvider = "System.Diagnostics.Metrics";
    private readonly string? _sessionId;

    /// <summary>Decodes the events of <paramref name="source"/>; metric values only of <paramref name="sessionId"/> when given.</summary>
    /// <param name="source">A TraceEvent source: a live EventPipe stream or a file.</param>
    /// <param name="sessionId">The metrics provider's SessionId argument to keep, or null for every session's.</param>
    public OrseisEventDecoder(TraceEventDispatcher source, string? sessionId = null)
    {
        ArgumentNullException.ThrowIfNull(source);
        _sessionId = sessionId;
        source.Dynamic.All += OnEvent;
    }

    /// <summary>Called for each published metric value of the Orseis meter.</summary>
    public event Action<MetricValue>? Metric;

    /// <summary>Called for each detector finding.</summary>
    public event Action<FindingEvent>? Finding;

    /// <summary>Called for every other Orseis event: the time, the event name and its payload as <c>name=value</c> text.</summary>
    public event Action<DateTime, string, string>? OtherEvent;

    private void OnEvent(TraceEvent e)
    {
        if (e.ProviderName == "Orseis")
        {
            if (e.EventName == "Finding")
                Finding?.Invoke(new FindingEvent(Text(e, "pool"), Text(e, "kind"), Text(e, "message"), Text(e, "figures")));
            else if (e.EventName is { Length: > 0 } name)
                OtherEvent?.Invoke(e.TimeStamp, name, string.Join(", ", e.PayloadNames.Select((n, i) => n + "=" + Payload(e, i))));
            return;
        }

        if (e.ProviderName != MetricsProvider || (_sessionId is not null && Text(e, "sessionId") != _sessionId) || Text(e, "meterName") != "Orseis")
            return;
        string instrument = Text(e, "instrumentName");
        string tags = Text(e, "tags");
        switch (e.EventName)
        {
            case "CounterRateValuePublished":
                Metric?.Invoke(new MetricValue(instrument, "Rate", Number(e, "rate"), tags, ""));
                break;
            case "UpDownCounterRateValuePublished":
                Metric?.Invoke(new MetricValue(instrument, "Value", Number(e, "value"), tags, ""));
                break;
            case "GaugeValuePublished":
                Metric?.Invoke(new MetricValue(instrument, "Value", Number(e, "lastValue"), tags, ""));
                break;
            case "HistogramValuePublished":
                Metric?.Invoke(new MetricValue(instrument, "Histogram", Number(e, "count"), tags, Text(e, "quantiles")));
                break;
        }
    }

    /// <summary>A payload field as text: numbers in the invariant culture, as the process wrote them.</summary>
    private static string Payload(TraceEvent e, int index) => e.PayloadValue(index) switch
    {
        double d => d.ToString("0.###", CultureInfo.InvariantCulture),
        IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
        var other => other?.ToString() ?? "",
    };

    private static string Text(TraceEvent e, string name) => e.PayloadByName(name)?.ToString() ?? "";

    private static double Number(TraceEvent e, string name) =>
        double.TryParse(Text(e, name), NumberStyles.Float, CultureInfo.InvariantCulture, out double v) ? v : double.NaN;

    /// <summary>Reads a <c>.nettrace</c> file to its end, calling the decoder's events in the file's order.</summary>
    /// <param name="path">The trace file, such as one written by <c>dotnet-trace collect</c>.</param>
    /// <param name="subscribe">Subscribes to the decoder's events before the file is read.</param>
    public static void ReadFile(string path, Action<OrseisEventDecoder> subscribe)
    {
        ArgumentNullException.ThrowIfNull(subscribe);
        using var source = new EventPipeEventSource(path);
        subscribe(new OrseisEventDecoder(source));
        source.Process();
    }
}

/// <summary>
/// An EventPipe session on another process that listens to the <c>Orseis</c> meter (through the runtime's
/// <c>System.Diagnostics.Metrics</c> provider, as dotnet-counters does) and to the <c>Orseis</c> EventSource's findings.
/// </summary>
public sealed class OrseisTraceSession : IDisposable
{
    private const string MetricsProvider = OrseisEventDecoder.MetricsProvider;
    private readonly EventPipeSession _session;
    private readonly EventPipeEventSource _source;
    private readonly string _sessionId = Guid.NewGuid().ToString();
    private readonly Thread _reader;

    /// <summary>Starts listening to process <paramref name="processId"/>; values arrive every <paramref name="interval"/>.</summary>
    /// <param name="processId">The process to attach to (it must be a .NET process the caller may diagnose).</param>
    /// <param name="interval">How often the runtime publishes metric values.</param>
    /// <param name="allEvents">Also take the Start/Stop events (verbose), not only findings.</param>
    public OrseisTraceSession(int processId, TimeSpan interval, bool allEvents = false)
    {
        var metricsArgs = new Dictionary<string, string>
        {
            ["SessionId"] = _sessionId,
            ["Metrics"] = "Orseis",
            ["RefreshInterval"] = interval.TotalSeconds.ToString(CultureInfo.InvariantCulture),
            ["MaxTimeSeries"] = "1000",
            ["MaxHistograms"] = "100",
        };
        EventPipeProvider[] providers =
        [
            new(MetricsProvider, EventLevel.Informational, keywords: 0x7, arguments: metricsArgs),
            new("Orseis", allEvents ? EventLevel.Verbose : EventLevel.Warning, keywords: -1),
        ];
        _session = new DiagnosticsClient(processId).StartEventPipeSession(providers, requestRundown: false);
        _source = new EventPipeEventSource(_session.EventStream);
        var decoder = new OrseisEventDecoder(_source, _sessionId);
        decoder.Metric += m => Metric?.Invoke(m);
        decoder.Finding += f => Finding?.Invoke(f);
        decoder.OtherEvent += (_, name, payload) => OtherEvent?.Invoke(name, payload);
        _reader = new Thread(() =>
        {
            try
            {
                _source.Process();
            }
            catch (Exception e) when (e is EndOfStreamException or IOException or ObjectDisposedException)
            {
            }
        }) { IsBackground = true, Name = "orseis-trace reader" };
        _reader.Start();
    }

    /// <summary>Called for each published metric value of the Orseis meter.</summary>
    public event Action<MetricValue>? Metric;

    /// <summary>Called for each detector finding.</summary>
    public event Action<FindingEvent>? Finding;

    /// <summary>Called for every other Orseis event (with <c>allEvents</c>): the event name and its payload as text.</summary>
    public event Action<string, string>? OtherEvent;

    /// <summary>Stops the session and the reader.</summary>
    public void Dispose()
    {
        try
        {
            _session.Stop();
        }
        catch (Exception e) when (e is ServerNotAvailableException or TimeoutException or IOException)
        {
            // The target already exited.
        }

        _reader.Join(TimeSpan.FromSeconds(10));
        _source.Dispose();
        _session.Dispose();
    }
}
