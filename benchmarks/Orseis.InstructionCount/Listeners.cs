using System.Diagnostics;
using Orseis.Scenarios;

namespace Orseis.InstructionCount;

/// <summary>
/// In-process consumers of everything Orseis publishes: the scenarios' MeterListener on the Orseis meter and
/// EventListener on the Orseis event source at Verbose (<see cref="OverheadListeners"/>, the same file), and an
/// ActivityListener that records every Orseis span (as a tracer with <c>AddSource("Orseis")</c> would).
/// </summary>
internal sealed class Listeners : IDisposable
{
    private readonly OverheadListeners _metersAndEvents = new();
    private readonly ActivityListener _spans;

    public Listeners()
    {
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
        _metersAndEvents.Dispose();
    }
}
