using System.Globalization;

namespace Orseis.Diagnostics.Replay;

/// <summary>
/// One event of the <c>Orseis</c> EventSource as a reader got it (TraceEvent from a <c>.nettrace</c>, or an in-process
/// EventListener): its id, when it was written, and its fields by name.
/// </summary>
/// <param name="EventId">The event's id (<see cref="OrseisEventSource"/>: facts are 7 to 14).</param>
/// <param name="Time">When it was written (UTC).</param>
/// <param name="Field">A field's value by name, null when the event has none of that name.</param>
internal readonly record struct RecordedFact(int EventId, DateTime Time, Func<string, object?> Field)
{
    /// <summary>The first id of a fact event.</summary>
    public const int FirstId = 7;

    /// <summary>The last id of a fact event.</summary>
    public const int LastId = 14;

    /// <summary>Whether an event of <paramref name="eventId"/> is one of the detectors' facts.</summary>
    public static bool IsFact(int eventId) => eventId is >= FirstId and <= LastId;

    public string Text(string name) => Field(name)?.ToString() ?? "";

    public long Long(string name) => Field(name) is { } v ? Convert.ToInt64(v, CultureInfo.InvariantCulture) : 0;

    public int Int(string name) => Field(name) is { } v ? Convert.ToInt32(v, CultureInfo.InvariantCulture) : 0;

    public double Double(string name) => Field(name) is { } v ? Convert.ToDouble(v, CultureInfo.InvariantCulture) : 0;

    public bool Bool(string name) => Field(name) is { } v && Convert.ToBoolean(v, CultureInfo.InvariantCulture);
}
