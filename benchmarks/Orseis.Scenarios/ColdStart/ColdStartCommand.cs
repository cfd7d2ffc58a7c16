using System.Diagnostics;
using System.Globalization;
using System.Text;

using static Orseis.Scenarios.ColdStart.StudyText;

namespace Orseis.Scenarios.ColdStart;

/// <summary>
/// The cold-start study (seed: "cold-pool-slowapp"): a burst of concurrent requests, each holding a pooled MariaDB
/// connection for a server-side sleep, fired by <c>hey</c> at a web app just started (cold: empty pool, thread pool at
/// its minimum) and again right after (warm), for each provider, sync and async calls, and a raised SetMinThreads.
/// Prints, per configuration and burst, the response times hey measured and what Orseis' detectors said.
/// </summary>
internal static class ColdStartCommand
{
    public static readonly string[] DefaultConfigs =
        ["mysqlconnector:async", "mysqlconnector:sync", "mysql-data:async", "mysql-data:sync", "mysql-data:sync:1024"];

    private sealed record Burst(
        SlowAppConfig Config, string Name, int Run, HeyBurst Hey, SlowAppReport After, Dictionary<string, long> NewFindings,
        Dictionary<string, long> NewErrors, List<SlowAppFinding> Examples);

    public static async Task<int> RunAsync(
        IReadOnlyList<SlowAppConfig> configs, int requests, int concurrency, double sleep, int maxPool, int runs, string? output, string? app)
    {
        string dll = app ?? SlowAppProcess.BuildApp();
        if (!File.Exists(dll))
            throw new ScenarioSetupException($"--app: {dll} does not exist.");
        var url = $"slow/{sleep.ToString(CultureInfo.InvariantCulture)}/db";
        TimeSpan limit = TimeSpan.FromMinutes(5);
        var bursts = new List<Burst>();
        var clock = Stopwatch.StartNew();
        for (int run = 1; run <= runs; run++)
        {
            foreach (SlowAppConfig config in configs)
            {
                await using SlowAppProcess process = await SlowAppProcess.StartAsync(dll, config, maxPool);
                foreach (string name in new[] { "cold", "warm" })
                {
                    SlowAppReport before = await process.ReportAsync();
                    DateTimeOffset started = DateTimeOffset.UtcNow;
                    HeyBurst hey = await HeyBurst.FireAsync(new Uri(process.Root, url), requests, concurrency, limit);
                    await Task.Delay(TimeSpan.FromMilliseconds(500)); // the detectors' last findings of the burst
                    SlowAppReport after = await process.ReportAsync();
                    Dictionary<string, long> fresh = Added(before.FindingCounts, after.FindingCounts), errors = Added(before.Errors, after.Errors);
                    var burst = new Burst(config, name, run, hey, after, fresh, errors, [.. after.Findings.Where(f => f.Timestamp >= started)]);
                    bursts.Add(burst);
                    Console.Error.WriteLine(Invariant(
                        $"run {run}, {config}, {name}: {hey.Ok}/{hey.Sent} ok, p50 {hey.Percentile(50):0.00} s, slowest {hey.Percentile(100):0.00} s, ") +
                        Invariant($"{after.ThreadPoolThreads} pool threads, findings: {Counts(fresh)} ({clock.Elapsed.TotalMinutes:0.0} min)"));
                }
            }
        }

        string text = Report(bursts, requests, concurrency, sleep, maxPool, runs, clock.Elapsed);
        Console.Write(text);
        if (output is not null)
            await File.WriteAllTextAsync(output, text);
        return 0;
    }

    private static string Report(List<Burst> bursts, int requests, int concurrency, double sleep, int maxPool, int runs, TimeSpan took)
    {
        var text = new StringBuilder();
        text.AppendLine(Invariant($"{requests} requests, {concurrency} at a time, each `select sleep({sleep})` on a pooled connection (Max Pool Size {maxPool}); {runs} run(s), {took.TotalMinutes:0.0} min."));
        text.AppendLine("Times in seconds as hey measured them; over runs, the median and [range]. Findings: Orseis' detectors during the burst, in how many runs.");
        text.AppendLine();
        text.AppendLine("| app | burst | answered 200 | p50 | p90 | slowest | pool threads after | failures | Orseis findings |");
        text.AppendLine("|---|---|---:|---:|---:|---:|---:|---|---|");
        foreach (var group in bursts.GroupBy(b => (b.Config, b.Name)))
        {
            Burst[] all = [.. group];
            string failures = string.Join("; ", all.SelectMany(b => b.NewErrors.Keys).Distinct().Select(e => e.Length > 60 ? e[..60] + "..." : e));
            var kinds = all.SelectMany(b => b.NewFindings.Keys).Distinct().Order()
                .Select(k => Invariant($"{k} {all.Count(b => b.NewFindings.ContainsKey(k))}/{all.Length}"));
            string findings = string.Join(", ", kinds);
            text.Append(Invariant($"| {group.Key.Config} | {group.Key.Name} | {all.Sum(b => b.Hey.Ok)}/{all.Sum(b => b.Hey.Sent)} "));
            text.Append(Invariant($"| {Spread(all, b => b.Hey.Percentile(50))} | {Spread(all, b => b.Hey.Percentile(90))} | {Spread(all, b => b.Hey.Percentile(100))} "));
            text.AppendLine(Invariant(
                $"| {Spread(all, b => b.After.ThreadPoolThreads, "0")} | {(failures.Length == 0 ? "none" : failures)} | {(findings.Length == 0 ? "none" : findings)} |"));
        }

        text.AppendLine();
        text.AppendLine("What the detectors said (per burst, the first finding of each kind in the first run that had one), and the report's");
        text.AppendLine("pool-size advice after each burst of the first run:");
        text.AppendLine();
        foreach (var group in bursts.GroupBy(b => (b.Config, b.Name)))
        {
            if (group.First().After.PoolSizeAdvice is { } advice)
                text.AppendLine(Invariant($"- {group.Key.Config}, {group.Key.Name}: report: {advice}"));
            foreach (var kind in group.SelectMany(b => b.Examples.Select(f => (b.Run, Finding: f))).GroupBy(x => x.Finding.Kind))
            {
                (int run, SlowAppFinding finding) = kind.First();
                text.AppendLine(Invariant($"- {group.Key.Config}, {group.Key.Name}, run {run}: **{finding.Kind}**: {finding.Message}"));
            }
        }

        return text.ToString();
    }

    private static string Spread(Burst[] bursts, Func<Burst, double> value, string format = "0.00") => StudyText.Spread(bursts.Select(value), format);
}
