using System.Diagnostics;
using System.Globalization;
using MySqlConnector;
using Orseis.Diagnostics;

namespace Orseis.Scenarios;

/// <summary>
/// The pool-size sweep: a fixed offered load (callers in a closed loop, each call holding a connection for a server-side
/// sleep, then thinking) run at Max Pool Size 1..256; the knee is the smallest size within 5 % of the best throughput.
/// The same load then runs at the default Max Pool Size (100) with every detector on, and the report's
/// RecommendedMaxPoolSize is compared with the knee (target: within 25 %).
/// </summary>
internal static class PoolSweep
{
    private sealed record Load(string Name, int Callers, int QueryMs, int ThinkMs);

    private static readonly Load[] Loads =
    [
        new("64 callers, 10 ms query, 30 ms think", 64, 10, 30),
        new("32 callers, 5 ms query, 20 ms think", 32, 5, 20),
        new("48 callers, 20 ms query, 20 ms think", 48, 20, 20),
        new("16 callers, 2 ms query, 10 ms think", 16, 2, 10),
    ];

    private static readonly int[] Sizes = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 18, 20, 22, 24, 28, 32, 36, 40, 48, 56, 64, 80, 96, 128, 192, 256];

    public static async Task<int> RunAsync(bool quick)
    {
        TimeSpan point = TimeSpan.FromSeconds(quick ? 1 : 2);
        Console.WriteLine("| load | knee (smallest Max Pool Size within 5 % of best) | best throughput/s | report's RecommendedMaxPoolSize at 100 | off by | within 25 % |");
        Console.WriteLine("|---|---|---|---|---|---|");
        int within = 0;
        foreach (Load load in Loads)
        {
            var throughput = new List<(int Size, double PerSecond)>();
            foreach (int size in Sizes)
            {
                (double perSecond, _) = await MeasureAsync(load, size, point, FindingKind.None);
                throughput.Add((size, perSecond));
                Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{load.Name}: Max Pool Size {size}: {perSecond:0.#}/s"));
            }

            double best = throughput.Max(t => t.PerSecond);
            int knee = throughput.First(t => t.PerSecond >= 0.95 * best).Size;
            (_, PoolReport report) = await MeasureAsync(load, 100, point * 2, FindingKind.All);
            int advice = report.RecommendedMaxPoolSize ?? 0;
            double off = (advice - knee) / (double)knee;
            bool ok = Math.Abs(off) <= 0.25;
            within += ok ? 1 : 0;
            Console.Error.WriteLine(report.PoolSizeAdvice);
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {load.Name} | {knee} | {best:0} | {advice} | {off:+0%;-0%;0%} | {(ok ? "yes" : "no")} |"));
        }

        Console.WriteLine();
        Console.WriteLine($"{within} of {Loads.Length} loads advised within 25 % of the knee.");
        return 0;
    }

    private static async Task<(double PerSecond, PoolReport Report)> MeasureAsync(Load load, int size, TimeSpan duration, FindingKind detectors)
    {
        var options = new OrseisOptions();
        options.Diagnostics.Detectors = detectors;
        await using var db = new Database(MySqlConnectorFactory.Instance, Server.With($"Max Pool Size={size};Connect Timeout=60"), options);
        await ScenarioRun.WarmAsync(db, Math.Min(size, load.Callers));
        string sql = string.Create(CultureInfo.InvariantCulture, $"do sleep({load.QueryMs / 1000.0})");
        long done = 0;
        bool counting = false;
        var watch = new Stopwatch();
        using var stop = new CancellationTokenSource();
        Task[] callers = [.. Enumerable.Range(0, load.Callers).Select(_ => Task.Run(async () =>
        {
            while (!stop.IsCancellationRequested)
            {
                await db.ExecuteAsync(sql);
                if (Volatile.Read(ref counting))
                    Interlocked.Increment(ref done);
                await Task.Delay(load.ThinkMs);
            }
        }))];
        await Task.Delay(500); // ramp-up, not counted
        Volatile.Write(ref counting, true);
        watch.Start();
        await Task.Delay(duration);
        long completed = Interlocked.Read(ref done);
        double seconds = watch.Elapsed.TotalSeconds;
        PoolReport report = db.GetPoolReport();
        await stop.CancelAsync();
        await Task.WhenAll(callers);
        return (completed / seconds, report);
    }
}
