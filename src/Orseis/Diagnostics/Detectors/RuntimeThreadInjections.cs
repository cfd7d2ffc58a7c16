using System.Diagnostics.Tracing;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// The runtime's own word on starvation, read in-process: <c>ThreadPoolWorkerThreadAdjustment/Adjustment</c> events of
/// <c>Microsoft-Windows-DotNETRuntime</c> (Threading keyword 0x10000, Informational) whose reason is Starvation (6) or
/// CooperativeBlocking (8: pool threads blocked on tasks). A busy CPU makes work wait too, but the runtime adds no
/// threads for it; these reasons mean threads were blocked. Listened to only while the thread-pool probe runs.
/// </summary>
internal sealed class RuntimeThreadInjections : EventListener
{
    private long _last;

    /// <summary>When the runtime last added a thread for starvation or blocking (a <see cref="TimeProvider.System"/> timestamp), or
    /// 0.</summary>
    public long Last => Volatile.Read(ref _last);

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
            Volatile.Write(ref _last, TimeProvider.System.GetTimestamp());
    }
}
