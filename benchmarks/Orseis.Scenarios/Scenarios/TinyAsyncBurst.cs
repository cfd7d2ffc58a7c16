using System.Diagnostics;
using System.Globalization;
using MySqlConnector;

namespace Orseis.Scenarios.Scenarios;

/// <summary>
/// A fresh process's 128 async <c>select 1</c> calls at once over loopback connects, then 2 s of the same
/// (<c>tiny-first-burst-async-128</c>), and its twin whose pool is warmed first with <c>WarmUpAsync(128)</c>, the cure
/// the cold-start finding names. Each run writes what its first wave cost to stderr: each caller's first call against
/// the same 128 at once on the then warm pool; and, unwarmed, the same on a second fresh pool of the now warm process
/// (no detectors): whether the first wave's time is the server's connects (it stays) or the process's start-up (it goes).
/// </summary>
internal static class TinyAsyncBurst
{
    public const int Callers = 128;

    /// <summary>The burst; <paramref name="warmed"/>: the pool is warmed with all its connections before it.</summary>
    public static async Task RunAsync(ScenarioRun run, string name, bool warmed)
    {
        Database db = run.Open(string.Create(CultureInfo.InvariantCulture, $"Max Pool Size={Callers}"));
        if (warmed)
            await db.WarmUpAsync(Callers, run.Stop);
        run.MarkOnset(); // the first calls begin
        long firstTicks = 0;
        bool[] called = new bool[Callers];
        await ScenarioRun.ForAsync(Callers, TimeSpan.FromSeconds(2), async caller =>
        {
            long started = Stopwatch.GetTimestamp();
            await db.QuerySingleAsync<long>("select 1");
            if (!called[caller])
            {
                called[caller] = true;
                Interlocked.Add(ref firstTicks, Stopwatch.GetTimestamp() - started);
            }
        });
        double first = firstTicks * 1000.0 / Stopwatch.Frequency / Callers;
        double warm = await ColdScenarios.TimedBurstAsync(Callers, async () => await db.QuerySingleAsync<long>("select 1"));
        Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"harm {name}: the first {Callers} requests took {first:0.0} ms on average, the same {Callers} at once on the warm pool {warm:0.0} ms: {first / warm:0.0}x"));
        if (!warmed)
            await ColdGrid.WithServerConnectionsAsync(2 * Callers + 50, () => SecondPoolAsync(name));
    }

    /// <summary>The same first wave on a second fresh pool (no detectors) of the now warm process: what the server's connects cost alone.</summary>
    private static async Task SecondPoolAsync(string name)
    {
        await using var second = new Database(MySqlConnectorFactory.Instance,
            Server.With(string.Create(CultureInfo.InvariantCulture, $"Max Pool Size={Callers}"), "orseis-second-pool"), new OrseisOptions());
        await ColdScenarios.HarmAsync(name + " (second pool, warm process)", Callers, async () => await second.QuerySingleAsync<long>("select 1"));
    }
}
