using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// A fifth held-out batch, written by the lead while the first-wave rule was being changed to name a wave whose connects
/// take seconds before they end (2026-12-01, twenty-sixth session) and never shown to whoever changed it: first waves whose
/// new connections take 1.2 to 6 s (a far server, a TLS or DNS stall, a server slow to accept), at 4 to 160 callers,
/// async, synchronous in <c>Task.Run</c>, an ASP.NET Core app under hey, and a console worker's own threads; each must be
/// named a cold start within 2 s of its onset. Their clean loopback twins (40 to 260 callers) stay silent.
/// </summary>
internal static class HeldOutFifthScenarios
{
    public static IEnumerable<Scenario> All() => new ColdGrid(
        "heldout5-wave",
        [
            ("async", 16, 2500, 10),
            ("async", 4, 6000, 15),
            ("async", 160, 1200, 20),
            ("sync", 8, 3000, 5),
            ("sync", 60, 4000, 6),
            ("sync", 24, 1500, 30),
            ("web", 24, 2000, 8),
            ("web", 6, 3500, 4),
            ("async", 260, 0, 8),
            ("sync", 120, 0, 10),
            ("web", 40, 0, 6),
        ],
        callers => $"{callers} synchronous callers at once in Task.Run, then 2 s of the same",
        ColdHarmScenarios.AsyncBurstAsync,
        Harmful: (connect, query) => connect > 100 && connect >= query).Scenarios().Concat(Workers());

    private static IEnumerable<Scenario> Workers()
    {
        yield return Scenario.Pathology("heldout5-threads-32-connect3000", "a fresh console worker, 32 threads of its own, each 4 synchronous calls of 'do sleep(0.005)' in a row; new connections take 3 s (init_connect)",
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
                    3.0);
            });

        yield return Scenario.CleanOne("heldout5-threads-32-loopback", "a fresh console worker, 32 threads of its own, each 4 synchronous calls of 'do sleep(0.005)' in a row; loopback connects",
            run =>
            {
                OwnThreads(run.Open());
                return Task.CompletedTask;
            });
    }

    /// <summary>A console worker's first batch on threads of its own: 32 threads, each 4 calls of 5 ms in a row.</summary>
    private static void OwnThreads(Database db)
    {
        var threads = Enumerable.Range(0, 32).Select(_ => new Thread(() =>
        {
            for (int i = 0; i < 4; i++)
                db.Execute("do sleep(0.005)");
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());
    }
}
