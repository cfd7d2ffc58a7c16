using System.Diagnostics.Tracing;

namespace Orseis.Scenarios;

/// <summary>
/// The ground truth for starvation: the runtime's own <c>ThreadPoolWorkerThreadAdjustment/Adjustment</c> events
/// (Microsoft-Windows-DotNETRuntime, Threading keyword 0x10000), counted by reason: 6 is Starvation, 8 CooperativeBlocking
/// (threads added because pool threads block on tasks).
/// </summary>
internal sealed class RuntimeThreadPoolEvents : EventListener
{
    private int _starvation;
    private int _cooperativeBlocking;

    public int Starvation => Volatile.Read(ref _starvation);

    public int CooperativeBlocking => Volatile.Read(ref _cooperativeBlocking);

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
            EnableEvents(eventSource, EventLevel.Informational, (EventKeywords)0x10000);
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        if (eventData.EventName != "ThreadPoolWorkerThreadAdjustmentAdjustment" || eventData.PayloadNames is null)
            return;
        int index = eventData.PayloadNames.IndexOf("Reason");
        if (index < 0 || eventData.Payload?[index] is not { } reason)
            return;
        switch (Convert.ToInt32(reason, System.Globalization.CultureInfo.InvariantCulture))
        {
            case 6:
                Interlocked.Increment(ref _starvation);
                break;
            case 8:
                Interlocked.Increment(ref _cooperativeBlocking);
                break;
        }
    }
}
