using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Diagnostics.Tracing;

namespace Orseis.InstructionCount;

/// <summary>
/// In-process consumers of everything Orseis publishes: a MeterListener on the Orseis meter, an EventListener on the
/// Orseis event source at Verbose, and an ActivityListener that records every Orseis span (as a tracer with
/// <c>AddSource("Orseis")</c> would).
/// </summary>
internal sealed class Listeners : IDisposable
{
    private readonly MeterListener _meters;
    private readonly OrseisEvents _events;
    private readonly ActivityListener _spans;

    public Listeners()
    {
        _meters = new MeterListener
        {
            InstrumentPublished = static (instrument, l) =>
            {
                if (instrument.Meter.Name == "Orseis")
                    l.EnableMeasurementEvents(instrument);
            },
        };
        _meters.SetMeasurementEventCallback<long>(static (_, _, _, _) => { });
        _meters.SetMeasurementEventCallback<int>(static (_, _, _, _) => { });
        _meters.SetMeasurementEventCallback<double>(static (_, _, _, _) => { });
        _meters.Start();
        _events = new OrseisEvents();
        _spans = new ActivityListener
        {
            ShouldListenTo = static source => source.Name == "Orseis",
            Sample = static (ref _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = static _ => { },
        };
        ActivitySource.AddActivityListener(_spans);
    }

    public void Dispose()
    {
        _spans.Dispose();
        _meters.Dispose();
        _events.Dispose();
    }

    private sealed class OrseisEvents : EventListener
    {
        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == "Orseis")
                EnableEvents(eventSource, EventLevel.Verbose);
        }

        protected override void OnEventWritten(EventWrittenEventArgs eventData)
        {
        }
    }
}
