// Compiled into the integration tests and the scenario suite (linked, not copied). An oracle independent of Orseis:
// it shares no code with the starvation detector's own listener
// (src/Orseis/Diagnostics/Detectors/RuntimeThreadInjections.cs).
using System.Diagnostics.Tracing;

namespace Orseis.Testing;

/// <summary>
/// The runtime's own word on thread-pool starvation, the ground truth of the tests and the scenario suite:
/// <c>ThreadPoolWorkerThreadAdjustment/Adjustment</c> events (Microsoft-Windows-DotNETRuntime, Threading keyword
/// 0x10000), counted by reason: 6 is Starvation, 8 CooperativeBlocking (threads added because pool threads block on
/// tasks).
/// </summary>
internal sealed class RuntimeThreadPoolEvents : EventListener
{
    private int _starvation;
    private int _cooperativeBlocking;
    private int _goal;

    /// <summary>Thread injections the runtime made because queued work was starved (reason 6).</summary>
    public int Starvation => Volatile.Read(ref _starvation);

    /// <summary>Thread injections the runtime made because pool threads blocked on tasks (reason 8).</summary>
    public int CooperativeBlocking => Volatile.Read(ref _cooperativeBlocking);

    /// <summary>Thread injections the runtime made because work was starved or blocked.</summary>
    public int StarvationAdjustments => Starvation + CooperativeBlocking;

    /// <summary>The number of threads the pool last said it lets run work (any adjustment's NewWorkerThreadCount), or 0.</summary>
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
        if (eventData.PayloadNames.IndexOf("NewWorkerThreadCount") is >= 0 and var goal && eventData.Payload?[goal] is { } count)
            Volatile.Write(ref _goal, Convert.ToInt32(count, System.Globalization.CultureInfo.InvariantCulture));
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
