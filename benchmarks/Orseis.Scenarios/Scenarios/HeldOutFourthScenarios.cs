using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// A fourth held-out batch, written by the lead while the cold-start rule's synchronous branch was being changed for
/// connects just over <c>SlowOpenFloor</c> (2026-12-01, twenty-fifth session) and never shown to whoever changed it: mostly
/// synchronous first waves on connects of 103 to 118 ms at caller counts and query times no rule was tuned on (12 to 230
/// callers), a few async and web ones, their clean loopback twins (up to 330 callers), and a console worker's first
/// batch on threads of its own (no thread pool), on slow connects and on loopback.
/// </summary>
internal static class HeldOutFourthScenarios
{
    public static IEnumerable<Scenario> All() => new ColdGrid(
        "heldout4-wave",
        [
            ("sync", 40, 103, 8),
            ("sync", 150, 107, 6),
            ("sync", 230, 112, 10),
            ("sync", 12, 118, 15),
            ("sync", 70, 105, 20),
            ("async", 100, 103, 6),
            ("web", 30, 105, 8),
            ("sync", 200, 0, 6),
            ("sync", 300, 0, 12),
            ("sync", 60, 0, 20),
            ("async", 330, 0, 6),
            ("web", 150, 0, 10),
        ],
        callers => $"{callers} synchronous callers at once in Task.Run, then 2 s of the same",
        ColdHarmScenarios.AsyncBurstAsync,
        Harmful: (connect, query) => connect > 100 && connect >= query).Scenarios().Concat(Workers());

    private static IEnumerable<Scenario> Workers()
    {
        yield return Scenario.Pathology("heldout4-threads-64-connect106", "a fresh console worker, 64 threads of its own, each 3 synchronous calls of 'do sleep(0.006)' in a row; new connections take 106 ms (init_connect)",
            FindingKind.SlowOpen, "Cold start",
            async run =>
            {
                Database db = run.Open();
                await ColdScenarios.WithSlowConnectsAsync(
                    () =>
                    {
                        run.MarkOnset();
                        OwnThreads(db);
                        return Task.CompletedTask;
                    },
                    0.106);
            });

        yield return Scenario.CleanOne("heldout4-threads-64-loopback", "a fresh console worker, 64 threads of its own, each 3 synchronous calls of 'do sleep(0.006)' in a row; loopback connects",
            run =>
            {
                OwnThreads(run.Open());
                return Task.CompletedTask;
            });
    }

    /// <summary>A console worker's first batch on threads of its own: 64 threads, each 3 calls of 6 ms in a row (a request each).</summary>
    private static void OwnThreads(Database db)
    {
        var threads = Enumerable.Range(0, 64).Select(_ => new Thread(() =>
        {
            for (int i = 0; i < 3; i++)
                db.Execute("do sleep(0.006)");
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());
    }
}
