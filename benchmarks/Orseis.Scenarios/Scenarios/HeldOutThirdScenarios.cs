using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// A third held-out batch, written by the lead while the cold-start rule was being changed for connects just over
/// <c>SlowOpenFloor</c> (2026-11-30, twenty-fourth session) and never shown to whoever changed it: first waves on connects
/// of 104 to 130 ms at caller counts and query times no rule was tuned on (8 to 210 callers, the three shapes), their clean
/// loopback twins (up to 270 async callers), a twin whose queries dwarf its slow connects, and a first burst through
/// <c>Parallel.ForEachAsync</c>, the way a console worker fans out its first batch.
/// </summary>
internal static class HeldOutThirdScenarios
{
    public static IEnumerable<Scenario> All() => new ColdGrid(
        "heldout3-wave",
        [
            ("async", 60, 108, 5),
            ("async", 210, 112, 10),
            ("async", 25, 120, 15),
            ("async", 12, 106, 4),
            ("sync", 90, 104, 12),
            ("sync", 30, 130, 20),
            ("sync", 8, 115, 10),
            ("web", 45, 110, 6),
            ("web", 90, 125, 10),
            ("async", 270, 0, 8),
            ("sync", 120, 0, 5),
            ("web", 60, 0, 5),
            ("async", 50, 110, 300),
        ],
        callers => $"{callers} synchronous callers at once in Task.Run, then 2 s of the same",
        ColdHarmScenarios.AsyncBurstAsync,
        Harmful: (connect, query) => connect > 100 && connect >= query).Scenarios().Concat(Workers());

    private static IEnumerable<Scenario> Workers()
    {
        yield return Scenario.Pathology("heldout3-parallel-foreach-48-connect110", "a fresh console worker, Parallel.ForEachAsync over 480 items, 48 at a time, each 'do sleep(0.006)'; new connections take 110 ms (init_connect)",
            FindingKind.SlowOpen, "Cold start",
            async run =>
            {
                Database db = run.Open();
                await ColdScenarios.WithSlowConnectsAsync(
                    () =>
                    {
                        run.MarkOnset();
                        return FirstBatchAsync(db);
                    },
                    0.11);
            });

        yield return Scenario.CleanOne("heldout3-parallel-foreach-48-loopback", "a fresh console worker, Parallel.ForEachAsync over 480 items, 48 at a time, each 'do sleep(0.006)'; loopback connects",
            async run =>
            {
                Database db = run.Open();
                await FirstBatchAsync(db);
            });
    }

    /// <summary>A console worker's first batch: 480 items, 48 at a time, each one call of 6 ms (a request of its own).</summary>
    private static Task FirstBatchAsync(Database db) =>
        Parallel.ForEachAsync(Enumerable.Range(0, 480), new ParallelOptions { MaxDegreeOfParallelism = 48 },
            async (_, token) => await db.ExecuteAsync("do sleep(0.006)"));
}
