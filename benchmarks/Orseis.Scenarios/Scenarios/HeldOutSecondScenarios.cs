using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// A second held-out batch, written by the lead while the cold-start and saturation rules were being changed
/// (2026-11-30, twenty-third session) and never shown to whoever changed them: first waves at caller counts, connect and
/// query times no rule was tuned on (40 to 330 callers, connects of 105 to 400 ms, the three shapes, clean loopback
/// twins up to 330 synchronous callers), real saturation of small pools at new sizes, and a first wave of exactly
/// Max Pool Size callers on slow connects (a cold start, not a saturated pool).
/// As first written, the last two looped open-per-call calls in one flow per caller, which is churn (`Churn` 5/5 in the
/// quiet run, rightly): each call is now a request of its own (an async lambda's flow), as the loads they stand for.
/// </summary>
internal static class HeldOutSecondScenarios
{
    public static IEnumerable<Scenario> All() => new ColdGrid(
        "heldout2-wave",
        [
            ("sync", 220, 0, 12),
            ("sync", 280, 0, 20),
            ("sync", 330, 0, 10),
            ("async", 220, 0, 10),
            ("web", 150, 0, 20),
            ("async", 140, 105, 8),
            ("sync", 190, 120, 12),
            ("web", 140, 140, 15),
            ("sync", 40, 400, 200),
            ("sync", 80, 120, 250),
        ],
        callers => $"{callers} synchronous callers at once in Task.Run, then 2 s of the same",
        ColdHarmScenarios.AsyncBurstAsync,
        Harmful: (connect, query) => connect > 100 && connect >= query).Scenarios().Concat(Saturation());

    private static IEnumerable<Scenario> Saturation()
    {
        yield return new Scenario("heldout2-saturation-6-of-30", "Max Pool Size=6, warm; 30 async callers arrive at once, each holding 150 ms",
            new Dictionary<FindingKind, string> { [FindingKind.Saturation] = "queueing for the pool", [FindingKind.PoolSize] = "raise Max Pool Size to" },
            async run =>
            {
                Database db = run.Open("Max Pool Size=6");
                await ScenarioRun.WarmAsync(db, 6);
                var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                Task[] callers = [.. Enumerable.Range(0, 30).Select(_ => Task.Run(async () =>
                {
                    await go.Task;
                    await db.ExecuteAsync("do sleep(0.15)");
                }))];
                await Task.Delay(200);
                run.MarkOnset();
                go.SetResult();
                await Task.WhenAll(callers);
            });

        yield return new Scenario("heldout2-saturation-sync-12-of-36", "a worker with the thread-pool minimum raised to 44: Max Pool Size=12, warm; 36 synchronous callers in Task.Run each running 'do sleep(0.08)' for 2 s",
            new Dictionary<FindingKind, string> { [FindingKind.Saturation] = "queueing for the pool", [FindingKind.PoolSize] = "raise Max Pool Size to" },
            async run =>
            {
                ThreadPool.GetMinThreads(out int workers, out int io);
                ThreadPool.SetMinThreads(Math.Max(workers, 44), io);
                Database db = run.Open("Max Pool Size=12");
                await ScenarioRun.WarmAsync(db, 12);
                run.MarkOnset();
                await ScenarioRun.ForAsync(36, TimeSpan.FromSeconds(2), _ => Task.Run(() => db.Execute("do sleep(0.08)")));
            });

        yield return Scenario.Pathology("heldout2-first-wave-equal-to-pool-24-connect150", "a fresh process, Max Pool Size=24, 24 async callers at once, each 'do sleep(0.03)' for 2 s; new connections take 150 ms (init_connect): a cold start, the pool never short",
            FindingKind.SlowOpen, "Cold start",
            async run =>
            {
                Database db = run.Open("Max Pool Size=24");
                await ColdScenarios.WithSlowConnectsAsync(
                    () =>
                    {
                        run.MarkOnset();
                        return ScenarioRun.ForAsync(24, TimeSpan.FromSeconds(2), async _ => await db.ExecuteAsync("do sleep(0.03)"));
                    },
                    0.15);
            });

        yield return Scenario.CleanOne("heldout2-warm-pool-exactly-full-16", "Max Pool Size=16, warm; 16 async callers looping 'do sleep(0.04)' for 3 s: every connection busy, nobody waits", async run =>
        {
            Database db = run.Open("Max Pool Size=16");
            await ScenarioRun.WarmAsync(db, 16);
            await ScenarioRun.ForAsync(16, TimeSpan.FromSeconds(3), async _ => await db.ExecuteAsync("do sleep(0.04)"));
        });
    }
}
