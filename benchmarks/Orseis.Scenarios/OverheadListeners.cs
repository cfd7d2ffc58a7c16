using System.Diagnostics.Metrics;
using System.Diagnostics.Tracing;

namespace Orseis.Scenarios;

/// <summary>An in-process MeterListener and EventListener that receive every Orseis measurement and event.</summary>
internal sealed class OverheadListeners : IDisposable
{
    private readonly MeterListener _meters;
    private readonly OrseisEvents _events;

    public OverheadListeners()
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
    }

    public void Dispose()
    {
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
