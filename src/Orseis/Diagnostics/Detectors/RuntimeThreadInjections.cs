using System.Diagnostics.Tracing;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// The runtime's own word on starvation, read in-process: <c>ThreadPoolWorkerThreadAdjustment/Adjustment</c> events of
/// <c>Microsoft-Windows-DotNETRuntime</c> (Threading keyword 0x10000, Informational) whose reason is Starvation (6) or
/// CooperativeBlocking (8: pool threads blocked on tasks). A busy CPU makes work wait too, but the runtime adds no
/// threads for it; these reasons mean threads were blocked. Every adjustment, whatever its reason, also gives the
/// number of threads the pool now lets run work (its goal, <see cref="Goal"/>): hill climbing can lower it below the
/// threads that exist, which then wait idle. Listened to only while the thread-pool probe runs.
/// </summary>
internal sealed class RuntimeThreadInjections : EventListener
{
    private long _last;
    private int _goal;

    /// <summary>When the runtime last added a thread for starvation or blocking (a <see cref="TimeProvider.System"/> timestamp), or
    /// 0.</summary>
    public long Last => Volatile.Read(ref _last);

    /// <summary>The pool's last announced goal: how many threads it lets run work at once, or 0 if it announced none.</summary>
    public int Goal => Volatile.Read(ref _goal);

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
            EnableEvents(eventSource, EventLevel.Informational, (EventKeywords)0x10000);
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        if (eventData.EventName != "ThreadPoolWorkerThreadAdjustmentAdjustment" || eventData.PayloadNames is null)
            return;
        int goal = eventData.PayloadNames.IndexOf("NewWorkerThreadCount");
        if (goal >= 0 && eventData.Payload?[goal] is { } count)
            Volatile.Write(ref _goal, Convert.ToInt32(count, System.Globalization.CultureInfo.InvariantCulture));
        int index = eventData.PayloadNames.IndexOf("Reason");
        if (index >= 0 && eventData.Payload?[index] is { } reason && Convert.ToInt32(reason, System.Globalization.CultureInfo.InvariantCulture) is 6 or 8)
            Volatile.Write(ref _last, TimeProvider.System.GetTimestamp());
    }
}
