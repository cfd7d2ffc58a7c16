using System.Diagnostics;
using System.Globalization;
using System.Text;
using MySqlConnector;

namespace Orseis.Scenarios;

/// <summary>
/// The slow-connect half of the cold-start question: a burst of callers on a fresh pool while the server makes every
/// new connection sleep (init_connect, as a TLS handshake or a distant server would), against the same burst after
/// <see cref="Database.WarmUpAsync"/>, on a warm pool, and after a warm-up the provider pruned while idle (with and
/// without Minimum Pool Size). Each configuration runs on a pool of its own, <c>runs</c> times; the table gives each
/// request's latency (median of the runs' means, and the runs' range) and its ratio to the warm pool's.
/// </summary>
internal static class WarmUpStudy
{
    private static readonly string[] Configs = ["cold", "warmed-up", "warm", "warmed-then-pruned", "warmed-min-pool-kept"];

    public static async Task<int> RunAsync(int runs, int callers, double connectSeconds, double idleSeconds, string? outFile)
    {
        var clock = Stopwatch.StartNew();
        var results = Configs.ToDictionary(c => c, _ => new List<(double Mean, double P95)>());
        await Server.SlowConnectsAsync(connectSeconds);
        try
        {
            for (int run = 1; run <= runs; run++)
            {
                foreach (string config in Configs)
                {
                    (double mean, double p95) = await RunOneAsync(config, callers, idleSeconds);
                    results[config].Add((mean, p95));
                    Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"run {run} {config}: mean {mean:0.0} ms, p95 {p95:0.0} ms"));
                }
            }
        }
        finally
        {
            await Server.SlowConnectsAsync(null);
        }

        string table = Table(results, runs, callers, connectSeconds, idleSeconds, clock.Elapsed);
        Console.WriteLine(table);
        if (outFile is not null)
            await File.WriteAllTextAsync(outFile, table);
        return 0;
    }

    private static async Task<(double Mean, double P95)> RunOneAsync(string config, int callers, double idleSeconds)
    {
        string settings = config switch
        {
            "warmed-then-pruned" => "Connection Idle Timeout=1",
            "warmed-min-pool-kept" => $"Connection Idle Timeout=1;Minimum Pool Size={callers}",
            _ => "",
        };
        await using var db = new Database(MySqlConnectorFactory.Instance, Server.With(settings));
        if (config != "cold")
        {
            if (config == "warm")
                await BurstAsync(db, callers);
            else
                await db.WarmUpAsync(callers);
        }

        if (config is "warmed-then-pruned" or "warmed-min-pool-kept")
            await Task.Delay(TimeSpan.FromSeconds(idleSeconds));
        double[] latencies = await BurstAsync(db, callers);
        Array.Sort(latencies);
        MySqlConnection.ClearAllPools();
        return (latencies.Average(), latencies[(int)Math.Ceiling(latencies.Length * 0.95) - 1]);
    }

    /// <summary><paramref name="callers"/> async requests released together, each a 0.2 s statement; each one's latency in ms.</summary>
    private static async Task<double[]> BurstAsync(Database db, int callers)
    {
        var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task<double>[] requests = [.. Enumerable.Range(0, callers).Select(_ => Task.Run(async () =>
        {
            await go.Task;
            long started = Stopwatch.GetTimestamp();
            await db.ExecuteAsync("do sleep(0.2)");
            return Stopwatch.GetElapsedTime(started).TotalMilliseconds;
        }))];
        await Task.Delay(100);
        go.SetResult();
        return await Task.WhenAll(requests);
    }

    private static string Table(
        Dictionary<string, List<(double Mean, double P95)>> results, int runs, int callers, double connectSeconds, double idleSeconds, TimeSpan took)
    {
        CultureInfo c = CultureInfo.InvariantCulture;
        double warm = Median(results["warm"].Select(r => r.Mean));
        var s = new StringBuilder();
        s.AppendLine(c, $"{callers} async callers at once, each a 0.2 s statement; new connections take {connectSeconds:0.###} s (init_connect); ");
        s.AppendLine(c, $"pruned/kept: idle {idleSeconds:0.#} s with Connection Idle Timeout=1. {runs} runs, {took.TotalMinutes:0.0} min.");
        s.AppendLine();
        s.AppendLine("| pool before the burst | request latency, mean (median of runs) | range of the runs' means | p95 (median) | against warm |");
        s.AppendLine("|---|---|---|---|---|");
        foreach ((string config, List<(double Mean, double P95)> list) in results)
        {
            double mean = Median(list.Select(r => r.Mean));
            s.AppendLine(c, $"| {config} | {mean:0.0} ms | {list.Min(r => r.Mean):0.0}–{list.Max(r => r.Mean):0.0} ms | " +
                            $"{Median(list.Select(r => r.P95)):0.0} ms | {mean / warm:0.00}x |");
        }

        return s.ToString();
    }

    private static double Median(IEnumerable<double> values)
    {
        double[] sorted = [.. values.Order()];
        return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
    }
}
