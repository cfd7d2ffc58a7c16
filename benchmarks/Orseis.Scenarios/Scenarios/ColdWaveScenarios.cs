namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// First waves at sizes no earlier scenario used and the cold-start rule was not tuned on (issue 45: "named at every
/// size tried"): 36, 70, 150 and 220 callers, connects of 120, 130 and 200 ms (init_connect), queries of 20, 30, 40 and
/// 400 ms, async callers, synchronous ones in <c>Task.Run</c> (150 of them: many threads blocked on the server at once)
/// and an ASP.NET Core app under hey. Harmful when the connects are past <c>SlowOpenFloor</c> (100 ms) and at least as
/// long as the work; the clean ones are the same shapes over loopback connects (a fresh process's own start-up, at big
/// sizes) and 130 ms connects outweighed by 400 ms queries (1.3x).
/// </summary>
internal static class ColdWaveScenarios
{
    public static IEnumerable<Scenario> All() => new ColdGrid(
        "first-wave",
        [
            ("sync", 150, 120, 20),
            ("async", 70, 130, 30),
            ("async", 220, 120, 30),
            ("web", 36, 200, 40),
            ("sync", 70, 200, 30),
            ("sync", 150, 0, 20),
            ("async", 220, 0, 30),
            ("web", 70, 0, 30),
            ("async", 70, 130, 400),
        ],
        callers => $"{callers} synchronous callers at once in Task.Run, then 2 s of the same",
        ColdHarmScenarios.AsyncBurstAsync,
        Harmful: (connect, query) => connect > 100 && connect >= query).Scenarios();
}
