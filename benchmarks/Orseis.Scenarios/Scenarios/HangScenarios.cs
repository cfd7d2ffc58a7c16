namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// First waves whose connects take seconds (issue 45, part 4: every finding within 2 s of its onset): a server far away,
/// a DNS or TLS stall, a server slow to answer at connect, made here by init_connect sleeping 2 to 3 s for every new
/// connection. A first wave is judged when its opens end; these must be named while their opens still wait (the
/// cold-start watch, ColdStarts.Waiting), at 4 to 64 callers, async, synchronous in <c>Task.Run</c> and in an ASP.NET Core
/// app under hey. Their clean twins (loopback connects at every size up to 330) are the other grids' loopback points.
/// </summary>
internal static class HangScenarios
{
    public static IEnumerable<Scenario> All() => new ColdGrid(
        "hang",
        [
            ("async", 4, 3000, 20),
            ("async", 16, 2000, 20),
            ("async", 64, 3000, 20),
            ("sync", 8, 3000, 20),
            ("sync", 32, 2500, 20),
            ("web", 16, 3000, 20),
        ],
        callers => $"{callers} synchronous callers at once in Task.Run, then 2 s of the same",
        ColdHarmScenarios.AsyncBurstAsync,
        Harmful: (connect, query) => connect > 100 && connect >= query).Scenarios();
}
