using System.Diagnostics.CodeAnalysis;
using System.Diagnostics.Tracing;

namespace Orseis.Diagnostics;

/// <summary>
/// The <c>Orseis</c> EventSource: Start/Stop events for connection acquisition and command execution, and one event
/// per detector finding, readable in-process with an EventListener or out of process over EventPipe (dotnet-trace,
/// TraceEvent, orseis-trace). Command text only when <see cref="DiagnosticsOptions.CaptureCommandText"/> is on;
/// parameter and row values never.
/// </summary>
/// <remarks>
/// Manifest format (the default), not self-describing: in the self-describing (TraceLogging) format the events
/// written through <c>WriteEvent</c> went out over EventPipe with a <c>bool</c> serialized as 1 byte while the
/// event's EventPipe metadata, built from the method's parameters, declared a 4-byte Boolean, so every field after
/// a <c>bool</c> decoded wrong outside the process; and each event carried the ETW session-mask keywords
/// 0xF00000000000, so no 32-bit keyword mask selected them. In the manifest format a <c>bool</c> is written as the
/// 4-byte Boolean its metadata says, and each event carries only the keywords declared below.
/// </remarks>
[EventSource(Name = "Orseis")]
internal sealed partial class OrseisEventSource : EventSource
{
    public static readonly OrseisEventSource Log = new();

    private OrseisEventSource()
    {
    }

    [Event(1, Level = EventLevel.Informational, Opcode = EventOpcode.Start, Task = Tasks.Open, Keywords = Keywords.Open)]
    public void OpenStart(string pool, int inUse, int pending) => WriteEvent(1, pool, inUse, pending);

    [Event(2, Level = EventLevel.Informational, Opcode = EventOpcode.Stop, Task = Tasks.Open, Keywords = Keywords.Open)]
    [UnconditionalSuppressMessage("Trimming", "IL2026", Justification = PrimitiveFields)]
    public unsafe void OpenStop(string pool, double durationMs, bool succeeded, int inUse, int pending)
    {
        int ok = succeeded ? 1 : 0; // a manifest Boolean is 4 bytes
        fixed (char* name = pool)
        {
            EventData* data = stackalloc EventData[5];
            data[0] = Text(name, pool);
            data[1] = Of(&durationMs, sizeof(double));
            data[2] = Of(&ok, sizeof(int));
            data[3] = Of(&inUse, sizeof(int));
            data[4] = Of(&pending, sizeof(int));
            WriteEventCore(2, 5, data);
        }
    }

    [Event(3, Level = EventLevel.Informational, Opcode = EventOpcode.Start, Task = Tasks.Command, Keywords = Keywords.Command)]
    public void CommandStart(string pool, string commandText) => WriteEvent(3, pool, commandText);

    [Event(4, Level = EventLevel.Informational, Opcode = EventOpcode.Stop, Task = Tasks.Command, Keywords = Keywords.Command)]
    [UnconditionalSuppressMessage("Trimming", "IL2026", Justification = PrimitiveFields)]
    public unsafe void CommandStop(string pool, double durationMs, bool succeeded)
    {
        int ok = succeeded ? 1 : 0;
        fixed (char* name = pool)
        {
            EventData* data = stackalloc EventData[3];
            data[0] = Text(name, pool);
            data[1] = Of(&durationMs, sizeof(double));
            data[2] = Of(&ok, sizeof(int));
            WriteEventCore(4, 3, data);
        }
    }

    /// <summary>A detector finding: its kind, readable message, figures as <c>name=value;...</c> and location if captured.</summary>
    [Event(5, Level = EventLevel.Warning, Task = Tasks.Finding, Keywords = Keywords.Finding)]
    public void Finding(string pool, string kind, string message, string figures, string location) =>
        WriteEvent(5, pool, kind, message, figures, location);

    /// <summary>A connection went back to the pool (or a session closed) after <paramref name="heldMs"/>.</summary>
    [Event(6, Level = EventLevel.Verbose, Task = Tasks.Release, Keywords = Keywords.Release)]
    [UnconditionalSuppressMessage("Trimming", "IL2026", Justification = PrimitiveFields)]
    public unsafe void Released(string pool, double heldMs, int inUse)
    {
        fixed (char* name = pool)
        {
            EventData* data = stackalloc EventData[3];
            data[0] = Text(name, pool);
            data[1] = Of(&heldMs, sizeof(double));
            data[2] = Of(&inUse, sizeof(int));
            WriteEventCore(6, 3, data);
        }
    }

    private const string PrimitiveFields = "a string and primitives are written, no object graph to serialize";

    // The three events a call writes go out through WriteEventCore: WriteEvent's object-array overload (no typed one
    // takes a double) boxed every field; about 300 instructions a call fewer with a listener on (instruction gate).

    /// <summary>A string field: its characters and the terminating NUL, as the manifest format reads it.</summary>
    private static unsafe EventData Text(char* chars, string text) =>
        new() { DataPointer = (nint)chars, Size = (text.Length + 1) * sizeof(char) };

    private static unsafe EventData Of(void* value, int size) => new() { DataPointer = (nint)value, Size = size };

    public static class Tasks
    {
        public const EventTask Open = (EventTask)1;
        public const EventTask Command = (EventTask)2;
        public const EventTask Finding = (EventTask)3;
        public const EventTask Release = (EventTask)4;
    }

    /// <summary>
    /// One keyword per area, all in the low 32 bits so any mask a tool accepts can select them
    /// (<c>Orseis:0xF:4</c> is every event but the facts; <c>Orseis:0x1F:5</c> everything; <c>Orseis:0x4:3</c> only findings).
    /// </summary>
    public static class Keywords
    {
        public const EventKeywords Open = (EventKeywords)0x1;
        public const EventKeywords Command = (EventKeywords)0x2;
        public const EventKeywords Finding = (EventKeywords)0x4;
        public const EventKeywords Release = (EventKeywords)0x8;

        /// <summary>The detectors' facts (<see cref="FactRecorder"/>), Verbose: for replaying the detectors offline.</summary>
        public const EventKeywords Facts = (EventKeywords)0x10;
    }
}
