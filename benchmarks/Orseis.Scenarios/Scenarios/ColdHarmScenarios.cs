using System.Globalization;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// First bursts at sizes and shapes the cold-start rule was not tuned on (issue 45, part 2: "named at every size
/// tried"): 4, 10, 25, 50 and 300 callers; connects of 40, 80, 150 and 300 ms (init_connect); queries of 5, 20, 100 and
/// 500 ms; async callers, synchronous ones in <c>Task.Run</c>, and an ASP.NET Core app under hey. A burst is harmful when
/// its connects are past <c>SlowOpenFloor</c> (100 ms) and at least as long as the work (the requests took twice their
/// own work or more); its clean twins are the same shape over loopback connects (a fresh process's own start-up), under
/// the floor (40 and 80 ms), or outweighed by the work (150 ms connects before 500 ms queries: 1.3x).
/// </summary>
internal static class ColdHarmScenarios
{
    public static IEnumerable<Scenario> All() => new ColdGrid(
        "cold",
        [
            ("async", 4, 150, 20),
            ("async", 10, 300, 5),
            ("async", 50, 300, 100),
            ("async", 300, 150, 20),
            ("sync", 10, 150, 20),
            ("sync", 25, 300, 100),
            ("web", 4, 300, 5),
            ("web", 25, 150, 100),
            ("async", 50, 0, 100),
            ("async", 300, 0, 20),
            ("web", 25, 0, 5),
            ("async", 10, 40, 5),
            ("async", 25, 80, 20),
            ("async", 10, 150, 500),
        ],
        callers => $"{callers} synchronous callers at once in Task.Run, then 2 s of the same",
        AsyncBurstAsync,
        Harmful: (connect, query) => connect > 100 && connect >= query).Scenarios().Concat(ColdWaveScenarios.All());

    /// <summary>
    /// <paramref name="callers"/> async callers at once on a fresh pool with room for all, then the same burst warm: what
    /// the cold start cost them is written to stderr (<see cref="ColdScenarios.HarmAsync"/>).
    /// </summary>
    internal static async Task AsyncBurstAsync(ScenarioRun run, string name, int callers, double? connect, string sql)
    {
        string settings = callers > 100 ? string.Create(CultureInfo.InvariantCulture, $"Max Pool Size={callers}") : "";
        Database db = run.Open(settings);
        Func<Task> body = () =>
        {
            run.MarkOnset(); // the set-up is done (connects made slow): the first burst begins
            return ColdScenarios.HarmAsync(name, callers, () => db.ExecuteAsync(sql));
        };
        if (connect is { } seconds)
            await ColdScenarios.WithSlowConnectsAsync(body, seconds);
        else
            await body();
    }
}
