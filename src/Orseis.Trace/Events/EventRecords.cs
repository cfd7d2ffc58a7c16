namespace Orseis.Trace;

/// <summary>One published value of an instrument, as the runtime's MetricsEventSource sends it.</summary>
/// <param name="Instrument">The instrument's name, such as <c>orseis.connection.opens</c>.</param>
/// <param name="Kind">Rate (counters: the increase over the interval), Value (up-down counters, gauges) or Histogram.</param>
/// <param name="Value">The rate per interval, the current value, or for histograms the count in the interval.</param>
/// <param name="Tags">The measurement's tags as <c>key=value</c> pairs separated by commas.</param>
/// <param name="Detail">Histograms: the quantiles text (<c>0.5=...;0.95=...</c>); empty otherwise.</param>
/// <param name="Meter">The meter: <c>Orseis</c>, <c>System.Runtime</c>, or a provider's (<c>Npgsql</c>, <c>MySqlConnector</c>).</param>
/// <param name="Time">When the process published it.</param>
public sealed record MetricValue(string Instrument, string Kind, double Value, string Tags, string Detail, string Meter = "Orseis",
    DateTime Time = default);

/// <summary>One <c>Finding</c> event of the <c>Orseis</c> EventSource.</summary>
/// <param name="Pool">The pool's name.</param>
/// <param name="Kind">The detector.</param>
/// <param name="Message">The readable message.</param>
/// <param name="Figures">The figures, <c>name=value;...</c>.</param>
/// <param name="Time">When the process raised it.</param>
public sealed record FindingEvent(string Pool, string Kind, string Message, string Figures, DateTime Time = default);

/// <summary>One open, command or release event of the <c>Orseis</c> EventSource.</summary>
/// <param name="Time">When the process wrote it.</param>
/// <param name="Name">The event: <c>Open/Start</c>, <c>Open/Stop</c>, <c>Command/Start</c>, <c>Command/Stop</c>, <c>Released</c>.</param>
/// <param name="Pool">The pool's name.</param>
/// <param name="DurationMs">Open/Stop and Command/Stop: how long it took; Released: how long the connection was held; else NaN.</param>
/// <param name="InUse">Connections held through Orseis after the event, or -1 when the event does not say.</param>
/// <param name="Pending">Callers inside Open, or -1 when the event does not say.</param>
/// <param name="Payload">Every field, <c>name=value</c> separated by commas, as the process wrote them.</param>
public sealed record PoolEvent(DateTime Time, string Name, string Pool, double DurationMs, int InUse, int Pending, string Payload);

/// <summary>The runtime changed its thread pool's worker count (<c>ThreadPoolWorkerThreadAdjustment/Adjustment</c>).</summary>
/// <param name="Time">When.</param>
/// <param name="Threads">The new worker thread count.</param>
/// <param name="Reason">The runtime's reason: <c>Starvation</c> is a thread injected because work items waited.</param>
public sealed record ThreadPoolAdjustment(DateTime Time, int Threads, string Reason);
