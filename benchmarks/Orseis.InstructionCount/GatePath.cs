namespace Orseis.InstructionCount;

/// <summary>
/// One measured path: a call shape (<see cref="Op"/>), how the connection is had (<see cref="Mode"/>), the detectors
/// (<c>None</c> or <c>All</c>) and whether in-process listeners consume Orseis' events, meters and spans. Written
/// <c>Op/mode/Detectors/listeners</c>, e.g. <c>Scalar/per-call/All/on</c>.
/// </summary>
public sealed record GatePath(string Op, string Mode, string Detectors, bool Listeners)
{
    /// <summary>The call shapes: <c>Scalar&lt;long&gt;</c>, <c>QuerySingle&lt;T&gt;</c> by id, <c>Query&lt;T&gt;</c> of 10 rows, <c>Execute</c> with arguments.</summary>
    public static readonly string[] Ops = ["Scalar", "QuerySingle", "Query10", "Execute"];

    /// <summary>A session held over the calls, a database opening per call, a scope over the calls, a ReuseConnection database.</summary>
    public static readonly string[] Modes = ["session", "per-call", "scope", "reuse"];

    /// <summary>The two detector settings.</summary>
    public static readonly string[] DetectorSettings = ["None", "All"];

    /// <summary>
    /// Settings measured on request only (never in <see cref="All"/> or the budgets): <c>AllButRepeats</c> is every
    /// detector but <see cref="Orseis.Diagnostics.FindingKind.RepeatedStatement"/>, to read what that one costs.
    /// </summary>
    public static readonly string[] ExtraDetectorSettings = ["AllButRepeats"];

    /// <summary>Every path: 4 shapes x 4 modes x 2 detector settings x listeners off and on.</summary>
    public static IEnumerable<GatePath> All() =>
        from listeners in new[] { false, true }
        from op in Ops
        from mode in Modes
        from detectors in DetectorSettings
        select new GatePath(op, mode, detectors, listeners);

    /// <summary>
    /// The paths the test command measures (about a minute under callgrind on 2 cores): the smallest call in every mode
    /// with both detector settings, listeners off; open per call and session with listeners on; the other three shapes
    /// open per call and on a session without detectors.
    /// </summary>
    public static IEnumerable<GatePath> Ci() =>
        (from mode in Modes from detectors in DetectorSettings select new GatePath("Scalar", mode, detectors, false))
        .Concat(from mode in new[] { "session", "per-call" } from detectors in DetectorSettings select new GatePath("Scalar", mode, detectors, true))
        .Concat(from op in Ops.Skip(1) from mode in new[] { "session", "per-call" } select new GatePath(op, mode, "None", false));

    /// <summary>Reads <c>Op/mode/Detectors/listeners</c>; a clear error names what was wrong.</summary>
    public static GatePath Parse(string text)
    {
        string[] parts = text.Split('/');
        if (parts.Length != 4)
            throw new FormatException($"path '{text}' is not Op/mode/Detectors/listeners (e.g. Scalar/per-call/All/on)");
        if (!Ops.Contains(parts[0]))
            throw new FormatException($"path '{text}': unknown call shape '{parts[0]}' (one of {string.Join(", ", Ops)})");
        if (!Modes.Contains(parts[1]))
            throw new FormatException($"path '{text}': unknown mode '{parts[1]}' (one of {string.Join(", ", Modes)})");
        if (!DetectorSettings.Contains(parts[2]) && !ExtraDetectorSettings.Contains(parts[2]))
            throw new FormatException($"path '{text}': detectors '{parts[2]}' is not None, All or AllButRepeats");
        if (parts[3] is not ("on" or "off"))
            throw new FormatException($"path '{text}': listeners '{parts[3]}' is neither on nor off");
        return new GatePath(parts[0], parts[1], parts[2], parts[3] == "on");
    }

    /// <inheritdoc />
    public override string ToString() => $"{Op}/{Mode}/{Detectors}/{(Listeners ? "on" : "off")}";
}
