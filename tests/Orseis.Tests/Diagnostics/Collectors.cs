using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using System.Diagnostics.Tracing;

namespace Orseis.Tests.Diagnostics;

/// <summary>One measurement of the Orseis meter.</summary>
public sealed record Measured(string Instrument, double Value, IReadOnlyDictionary<string, object?> Tags);

/// <summary>Collects the Orseis meter's measurements for one pool name.</summary>
public sealed class MetricCollector : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly string _pool;

    public MetricCollector(string pool)
    {
        _pool = pool;
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == "Orseis")
                listener.EnableMeasurementEvents(instrument);
        };
        _listener.SetMeasurementEventCallback<long>((i, v, t, _) => Add(i, v, t));
        _listener.SetMeasurementEventCallback<double>((i, v, t, _) => Add(i, v, t));
        _listener.Start();
    }

    public ConcurrentQueue<Measured> Measurements { get; } = new();

    public Action<Measured>? OnMeasured { get; set; }

    public IReadOnlyList<Measured> Of(string instrument)
    {
        _listener.RecordObservableInstruments();
        return Measurements.Where(m => m.Instrument == instrument).ToList();
    }

    private void Add(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        var dict = new Dictionary<string, object?>();
        foreach (KeyValuePair<string, object?> tag in tags)
            dict[tag.Key] = tag.Value;
        if (!Equals(dict.GetValueOrDefault("db.client.connection.pool.name"), _pool))
            return;
        var measured = new Measured(instrument.Name, value, dict);
        Measurements.Enqueue(measured);
        OnMeasured?.Invoke(measured);
    }

    public void Dispose() => _listener.Dispose();
}

/// <summary>Collects the Orseis EventSource's events.</summary>
public sealed class EventCollector : EventListener
{
    public ConcurrentQueue<EventWrittenEventArgs> Events { get; } = new();

    public Action<EventWrittenEventArgs>? OnEvent { get; set; }

    public IReadOnlyList<EventWrittenEventArgs> For(string pool) =>
        Events.Where(e => e.Payload is { Count: > 0 } p && Equals(p[0], pool)).ToList();

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "Orseis")
            EnableEvents(eventSource, EventLevel.Verbose);
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        Events.Enqueue(eventData);
        OnEvent?.Invoke(eventData);
    }

    public static object? Field(EventWrittenEventArgs e, string name) =>
        e.PayloadNames is { } names && names.IndexOf(name) is >= 0 and var i ? e.Payload![i] : null;
}
