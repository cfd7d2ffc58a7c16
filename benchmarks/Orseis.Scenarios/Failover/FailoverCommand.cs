using System.Diagnostics;
using System.Globalization;
using Orseis.Scenarios.ColdStart;
using Orseis.Testing;
using static Orseis.Scenarios.ColdStart.StudyText;

namespace Orseis.Scenarios.Failover;

/// <summary>
/// The failover study (seed: "hikaricp-vs-dbcp2"): a web app (samples/Orseis.Samples.SlowApp) under steady load from
/// <c>hey</c> while its MariaDB is stopped and started again on the same port, as a failover looks to its clients (every
/// connection cut, new ones refused until the server is back). Measures, per provider and call style, how long users saw
/// errors, how long after the server was back they stopped, the slowest request, and what Orseis' detectors said.
/// Starts a MariaDB of its own (scripts/mariadb-start.sh), since it restarts it.
/// </summary>
internal static class FailoverCommand
{
    public static readonly string[] DefaultConfigs = ["mysqlconnector:async", "mysqlconnector:sync", "mysql-data:async", "mysql-data:sync"];

    /// <param name="Config">The app's provider and call style.</param>
    /// <param name="Number">The run, from 1.</param>
    /// <param name="Hey">Every request hey made, offsets from when hey started.</param>
    /// <param name="DownAt">When the server's stop began, seconds on hey's clock.</param>
    /// <param name="UpAt">When the server answered again.</param>
    /// <param name="After">The app's report after the load.</param>
    /// <param name="NewFindings">Findings that the load added, by kind.</param>
    /// <param name="NewErrors">Failed requests the load added, by error.</param>
    /// <param name="Examples">The findings' texts.</param>
    internal sealed record Run(
        SlowAppConfig Config, int Number, HeyBurst Hey, double DownAt, double UpAt, SlowAppReport After, Dictionary<string, long> NewFindings,
        Dictionary<string, long> NewErrors, List<SlowAppFinding> Examples)
    {
        private IEnumerable<HeyRequest> Failures => Hey.Requests.Where(r => r.Status != 200);

        /// <summary>Requests that failed (any status but 200).</summary>
        public int Failed => Failures.Count();

        /// <summary>How long users saw errors: from the first failed request's answer to the last one's, seconds.</summary>
        public double ErrorSpan => Failed == 0 ? 0 : Failures.Max(End) - Failures.Min(End);

        /// <summary>How long after the server was back the last failed request was answered (0 if none failed after it).</summary>
        public double ErrorsAfterUp => Failed == 0 ? 0 : Math.Max(0, Failures.Max(End) - UpAt);

        /// <summary>Requests answered 200 per second before the server went down.</summary>
        public double OkPerSecondBefore => Hey.Requests.Count(r => r.Status == 200 && End(r) < DownAt) / DownAt;

        /// <summary>Median time of the requests answered before the server went down, seconds.</summary>
        public double MedianBefore => HeyBurst.Percentile(Hey.Requests.Where(r => End(r) < DownAt).Select(r => r.Seconds), 50);

        /// <summary>The slowest request of the run, seconds.</summary>
        public double Slowest => Hey.Percentile(100);

        /// <summary>Median time of the requests started more than 5 s after the server was back (the recovered app), seconds.</summary>
        public double MedianAfter => HeyBurst.Percentile(Hey.Requests.Where(r => r.Offset > UpAt + 5).Select(r => r.Seconds), 50);

        private static double End(HeyRequest r) => r.Offset + r.Seconds;
    }

    public static async Task<int> RunAsync(
        IReadOnlyList<SlowAppConfig> configs, int concurrency, int rate, double sleep, TimeSpan duration, TimeSpan at, TimeSpan down, int maxPool,
        int runs, string? output, string? app)
    {
        if (at + down + TimeSpan.FromSeconds(10) > duration)
            throw new ScenarioSetupException($"--seconds {duration.TotalSeconds} leaves less than 10 s of load after the server is back (--at {at.TotalSeconds} + --down {down.TotalSeconds}).");
        string dll = app ?? SlowAppProcess.BuildApp();
        if (!File.Exists(dll))
            throw new ScenarioSetupException($"--app: {dll} does not exist.");
        using var server = new ThrowawayMariaDb("failover");
        var url = $"slow/{sleep.ToString(CultureInfo.InvariantCulture)}/db";
        var results = new List<Run>();
        var clock = Stopwatch.StartNew();
        for (int number = 1; number <= runs; number++)
        {
            foreach (SlowAppConfig config in configs)
            {
                await using SlowAppProcess process = await SlowAppProcess.StartAsync(dll, config, maxPool, server.ConnectionString);
                // Warm first (pool and thread pool), so that the restart is the only event of the measured load.
                await HeyBurst.FireAsync(new Uri(process.Root, url), concurrency * 4, concurrency, TimeSpan.FromMinutes(2));
                await Task.Delay(TimeSpan.FromSeconds(1));
                SlowAppReport before = await process.ReportAsync();
                var started = DateTimeOffset.UtcNow;
                var heyClock = Stopwatch.StartNew();
                Task<HeyBurst> load = HeyBurst.SustainAsync(new Uri(process.Root, url), duration, concurrency, rate, TimeSpan.Zero);
                await Task.Delay(at);
                double downAt = heyClock.Elapsed.TotalSeconds;
                await Task.Factory.StartNew(() => server.Restart(down), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
                double upAt = heyClock.Elapsed.TotalSeconds;
                HeyBurst hey = await load;
                await Task.Delay(TimeSpan.FromMilliseconds(500)); // the detectors' last findings
                SlowAppReport after = await process.ReportAsync();
                var run = new Run(
                    config, number, hey, downAt, upAt, after, Added(before.FindingCounts, after.FindingCounts),
                    Added(before.Errors, after.Errors), [.. after.Findings.Where(f => f.Timestamp >= started)]);
                results.Add(run);
                Console.Error.WriteLine(Invariant(
                    $"run {number}, {config}: {hey.Ok}/{hey.Sent} ok, server down {downAt:0.0}-{upAt:0.0} s, errors for {run.ErrorSpan:0.00} s, ") +
                    Invariant($"until {run.ErrorsAfterUp:0.00} s after it was back, slowest {run.Slowest:0.00} s, findings: {Counts(run.NewFindings)} ({clock.Elapsed.TotalMinutes:0.0} min)"));
            }
        }

        string text = FailoverReport.Write(results, concurrency, rate, sleep, duration, at, down, maxPool, runs, clock.Elapsed);
        Console.Write(text);
        if (output is not null)
            await File.WriteAllTextAsync(output, text);
        return 0;
    }
}
