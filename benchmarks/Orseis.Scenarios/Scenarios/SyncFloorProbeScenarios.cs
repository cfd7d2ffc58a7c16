using System.Globalization;
using Orseis.Diagnostics;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// Synchronous first waves whose connects are just over <c>SlowOpenFloor</c> (100 ms), written to trace how the cold-start
/// rule reads a synchronous wave (issue 45, part 2): 8 to 200 callers on connects of 101 to 125 ms under queries of 5 to
/// 20 ms, in <c>Task.Run</c> and on plain threads, each a cold start (every request several times its warm time); and their
/// clean twins, 60 to 330 synchronous callers over loopback connects.
/// </summary>
internal static class SyncFloorProbeScenarios
{
    public static IEnumerable<Scenario> All()
    {
        foreach (Scenario scenario in new ColdGrid(
            "floor-wave",
            [
                ("sync", 8, 103, 10),
                ("sync", 45, 101, 6),
                ("sync", 75, 107, 15),
                ("sync", 140, 105, 8),
                ("sync", 200, 103, 5),
                ("sync", 160, 112, 20),
                ("sync", 30, 125, 12),
                ("sync", 60, 0, 10),
                ("sync", 180, 0, 6),
                ("sync", 250, 0, 8),
                ("sync", 330, 0, 5),
            ],
            callers => $"{callers} synchronous callers at once in Task.Run, then 2 s of the same",
            ColdHarmScenarios.AsyncBurstAsync,
            Harmful: (connect, query) => connect > 100 && connect >= query).Scenarios())
        {
            yield return scenario;
        }

        foreach ((int callers, int connect, int query) in new[] { (24, 102, 8), (96, 106, 5), (150, 0, 6), (64, 0, 12) })
        {
            string connects = connect == 0 ? "loopback" : string.Create(CultureInfo.InvariantCulture, $"connect{connect}");
            string name = string.Create(CultureInfo.InvariantCulture, $"threads-floor-wave-{callers}-{connects}-query{query}");
            string description = string.Create(CultureInfo.InvariantCulture,
                $"a fresh process, {callers} plain threads each calling synchronously at once, then a call every 20 ms for 2 s, each 'do sleep({query / 1000.0})'; ") +
                (connect == 0 ? "loopback connects" : string.Create(CultureInfo.InvariantCulture, $"new connections take {connect} ms (init_connect)"));
            string sql = string.Create(CultureInfo.InvariantCulture, $"do sleep({query / 1000.0})");
            double? seconds = connect == 0 ? null : connect / 1000.0;
            Func<ScenarioRun, Task> body = run => ThreadsBurstAsync(run, callers, seconds, sql);
            yield return connect > 100
                ? Scenario.Pathology(name, description, FindingKind.SlowOpen, "Cold start", body)
                : Scenario.CleanOne(name, description, body);
        }
    }

    /// <summary><paramref name="callers"/> plain threads, released together, each calling synchronously every 20 ms for 2 s.</summary>
    private static async Task ThreadsBurstAsync(ScenarioRun run, int callers, double? connect, string sql)
    {
        Database db = run.Open(callers > 100 ? $"Max Pool Size={callers}" : "");
        Func<Task> body = () =>
        {
            run.MarkOnset();
            DateTime end = DateTime.UtcNow + TimeSpan.FromSeconds(2);
            using var go = new ManualResetEventSlim();
            var threads = new Thread[callers];
            for (int i = 0; i < callers; i++)
            {
                threads[i] = new Thread(() =>
                {
                    go.Wait();
                    while (DateTime.UtcNow < end)
                    {
                        db.Execute(sql);
                        Thread.Sleep(20); // the worker's next unit of work comes 20 ms later: not back-to-back opens (churn)
                    }
                }) { IsBackground = true };
                threads[i].Start();
            }

            go.Set();
            foreach (Thread thread in threads)
                thread.Join();
            return Task.CompletedTask;
        };
        if (connect is { } seconds)
            await ColdScenarios.WithSlowConnectsAsync(body, seconds);
        else
            await body();
    }
}
