using System.Diagnostics.Tracing;

namespace Orseis.IntegrationTests.Diagnostics;

/// <summary>
/// The runtime's own word on thread-pool starvation, the tests' ground truth: <c>ThreadPoolWorkerThreadAdjustment/Adjustment</c>
/// events (Microsoft-Windows-DotNETRuntime, Threading keyword 0x10000) with reason 6 (Starvation) or 8
/// (CooperativeBlocking: threads added because pool threads block on tasks).
/// </summary>
internal sealed class RuntimeThreadPoolEvents : EventListener
{
    private int _starved;

    /// <summary>Thread injections the runtime made because work was starved or blocked.</summary>
    public int StarvationAdjustments => Volatile.Read(ref _starved);

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
        if (index >= 0 && eventData.Payload?[index] is { } reason && Convert.ToInt32(reason, System.Globalization.CultureInfo.InvariantCulture) is 6 or 8)
            Interlocked.Increment(ref _starved);
    }
}
