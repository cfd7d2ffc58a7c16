namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// First waves at sizes none of the cold-start rule's tuning saw, added by the rule's author to check it off its own
/// failures (issue 45, part 2): connects 15 to 20 ms over <c>SlowOpenFloor</c> at 90 to 170 callers, the three shapes,
/// and their loopback twins, with 250 synchronous callers over loopback (more threads than the 200 that made a clean
/// wave's late connects look slow). Harmful as <see cref="UntriedWaveScenarios"/>: connects past the floor and at least
/// as long as the work.
/// </summary>
internal static class ProbeWaveScenarios
{
    public static IEnumerable<Scenario> All() => new ColdGrid(
        "probe-wave",
        [
            ("async", 90, 115, 15),
            ("sync", 170, 115, 10),
            ("web", 100, 120, 20),
            ("async", 90, 0, 15),
            ("sync", 170, 0, 10),
            ("sync", 250, 0, 10),
            ("web", 100, 0, 20),
        ],
        callers => $"{callers} synchronous callers at once in Task.Run, then 2 s of the same",
        ColdHarmScenarios.AsyncBurstAsync,
        Harmful: (connect, query) => connect > 100 && connect >= query).Scenarios();
}
