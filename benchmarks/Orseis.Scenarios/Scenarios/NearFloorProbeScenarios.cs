namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// First waves whose connects are just over <c>SlowOpenFloor</c> (100 ms), written to trace how the cold-start rule
/// separates them from loopback waves (issue 45, part 2): 12 to 200 callers on connects of 102 to 125 ms under queries
/// of 5 to 20 ms, the three shapes, each a cold start (every request several times its warm time); and their clean twins,
/// 60 to 330 callers over loopback connects.
/// </summary>
internal static class NearFloorProbeScenarios
{
    public static IEnumerable<Scenario> All() => new ColdGrid(
        "nearfloor-wave",
        [
            ("async", 12, 108, 10),
            ("async", 50, 103, 6),
            ("async", 110, 112, 12),
            ("async", 180, 106, 5),
            ("async", 35, 122, 18),
            ("sync", 20, 104, 8),
            ("sync", 120, 110, 12),
            ("sync", 180, 102, 5),
            ("web", 24, 106, 10),
            ("web", 90, 118, 15),
            ("async", 60, 0, 10),
            ("async", 200, 0, 6),
            ("async", 330, 0, 5),
            ("sync", 120, 0, 12),
            ("sync", 330, 0, 8),
            ("web", 60, 0, 10),
            ("web", 200, 0, 6),
        ],
        callers => $"{callers} synchronous callers at once in Task.Run, then 2 s of the same",
        ColdHarmScenarios.AsyncBurstAsync,
        Harmful: (connect, query) => connect > 100 && connect >= query).Scenarios();
}
