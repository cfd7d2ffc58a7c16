using System.Diagnostics.Tracing;

namespace Orseis.Diagnostics;

/// <summary>
/// The <c>Orseis</c> EventSource: Start/Stop events for connection acquisition and command execution, readable
/// in-process with an EventListener or out of process over EventPipe (dotnet-trace, TraceEvent).
/// </summary>
[EventSource(Name = "Orseis")]
internal sealed class OrseisEventSource : EventSource
{
    public static readonly OrseisEventSource Log = new();

    private OrseisEventSource() : base(EventSourceSettings.EtwSelfDescribingEventFormat)
    {
    }

    [Event(1, Level = EventLevel.Informational, Opcode = EventOpcode.Start, Task = Tasks.Open)]
    public void OpenStart(string pool) => WriteEvent(1, pool);

    [Event(2, Level = EventLevel.Informational, Opcode = EventOpcode.Stop, Task = Tasks.Open)]
    public void OpenStop(string pool, double durationMs, bool succeeded) => WriteEvent(2, pool, durationMs, succeeded);

    [Event(3, Level = EventLevel.Informational, Opcode = EventOpcode.Start, Task = Tasks.Command)]
    public void CommandStart(string pool, string commandText) => WriteEvent(3, pool, commandText);

    [Event(4, Level = EventLevel.Informational, Opcode = EventOpcode.Stop, Task = Tasks.Command)]
    public void CommandStop(string pool, double durationMs, bool succeeded) => WriteEvent(4, pool, durationMs, succeeded);

    public static class Tasks
    {
        public const EventTask Open = (EventTask)1;
        public const EventTask Command = (EventTask)2;
    }
}
