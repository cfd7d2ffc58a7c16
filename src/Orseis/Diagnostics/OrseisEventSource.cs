using System.Diagnostics.Tracing;

namespace Orseis.Diagnostics;

/// <summary>
/// The <c>Orseis</c> EventSource: Start/Stop events for connection acquisition and command execution, and one event
/// per detector finding, readable in-process with an EventListener or out of process over EventPipe (dotnet-trace,
/// TraceEvent, orseis-trace). Command text only when <see cref="DiagnosticsOptions.CaptureCommandText"/> is on;
/// parameter and row values never.
/// </summary>
[EventSource(Name = "Orseis")]
internal sealed class OrseisEventSource : EventSource
{
    public static readonly OrseisEventSource Log = new();

    private OrseisEventSource() : base(EventSourceSettings.EtwSelfDescribingEventFormat)
    {
    }

    [Event(1, Level = EventLevel.Informational, Opcode = EventOpcode.Start, Task = Tasks.Open)]
    public void OpenStart(string pool, int inUse, int pending) => WriteEvent(1, pool, inUse, pending);

    [Event(2, Level = EventLevel.Informational, Opcode = EventOpcode.Stop, Task = Tasks.Open)]
    public void OpenStop(string pool, double durationMs, bool succeeded, int inUse, int pending) =>
        WriteEvent(2, pool, durationMs, succeeded, inUse, pending);

    [Event(3, Level = EventLevel.Informational, Opcode = EventOpcode.Start, Task = Tasks.Command)]
    public void CommandStart(string pool, string commandText) => WriteEvent(3, pool, commandText);

    [Event(4, Level = EventLevel.Informational, Opcode = EventOpcode.Stop, Task = Tasks.Command)]
    public void CommandStop(string pool, double durationMs, bool succeeded) => WriteEvent(4, pool, durationMs, succeeded);

    /// <summary>A detector finding: its kind, readable message, figures as <c>name=value;...</c> and location if captured.</summary>
    [Event(5, Level = EventLevel.Warning, Task = Tasks.Finding)]
    public void Finding(string pool, string kind, string message, string figures, string location) =>
        WriteEvent(5, pool, kind, message, figures, location);

    /// <summary>A connection went back to the pool (or a session closed) after <paramref name="heldMs"/>.</summary>
    [Event(6, Level = EventLevel.Verbose, Task = Tasks.Release)]
    public void Released(string pool, double heldMs, int inUse) => WriteEvent(6, pool, heldMs, inUse);

    public static class Tasks
    {
        public const EventTask Open = (EventTask)1;
        public const EventTask Command = (EventTask)2;
        public const EventTask Finding = (EventTask)3;
        public const EventTask Release = (EventTask)4;
    }
}
