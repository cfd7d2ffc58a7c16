namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// First waves at sizes chosen after the cold-start rule's last change and never shown to whoever changed it (issue 45:
/// "named at every size tried, including ones not in the suite"): 30, 40, 60, 100, 130 and 200 callers, connects of
/// 110 to 250 ms, queries of 10 to 500 ms, the three shapes. Harmful when the connects are past <c>SlowOpenFloor</c>
/// (100 ms) and at least as long as the work; the clean twins run the same callers over loopback connects, and one
/// slow-connect wave under queries four times its connects.
/// </summary>
internal static class UntriedWaveScenarios
{
    public static IEnumerable<Scenario> All() => new ColdGrid(
        "untried-wave",
        [
            ("sync", 100, 140, 25),
            ("sync", 200, 125, 15),
            ("sync", 30, 180, 60),
            ("async", 130, 110, 10),
            ("async", 40, 250, 200),
            ("web", 60, 160, 60),
            ("sync", 100, 0, 25),
            ("sync", 200, 0, 15),
            ("async", 130, 0, 10),
            ("web", 60, 0, 60),
            ("async", 40, 120, 500),
        ],
        callers => $"{callers} synchronous callers at once in Task.Run, then 2 s of the same",
        ColdHarmScenarios.AsyncBurstAsync,
        Harmful: (connect, query) => connect > 100 && connect >= query).Scenarios();
}
