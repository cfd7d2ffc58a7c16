using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.Json;

namespace Orseis.Scenarios;

/// <summary>
/// Runs every scenario N times, each run in a process of its own, then once more beside a CPU hog on every core, and
/// prints the confusion table (scenario, expected, what fired in how many runs, whether the cause was named) with
/// precision and recall over every (run, finding kind) pair, then the time to detect each expected kind
/// (<see cref="TimeToDetect"/>), per scenario and per kind.
/// </summary>
internal static class SuiteRunner
{
    public static async Task<int> RunAsync(int runs, bool hog, string[]? only)
    {
        _ = Server.ConnectionString;
        string[] unknown = only is null ? [] : [.. only.Where(name => !Catalog.All.Any(s => s.Name == name))];
        if (unknown.Length > 0)
            throw new ScenarioSetupException($"--only: no scenario named {string.Join(", ", unknown)}; the scenarios are {string.Join(", ", Catalog.All.Select(s => s.Name))}");
        List<Scenario> scenarios = [.. Catalog.All.Where(s => only is null || only.Contains(s.Name))];
        if (scenarios.Count == 0)
            throw new ScenarioSetupException("no scenario to run: a suite of none would report precision and recall over nothing");
        var results = new Dictionary<string, List<RunResult>>();
        var hogResults = new Dictionary<string, RunResult>();
        var watch = Stopwatch.StartNew();
        foreach (Scenario scenario in scenarios)
        {
            results[scenario.Name] = [];
            for (int r = 0; r < runs; r++)
                results[scenario.Name].Add(await RunOneAsync(scenario.Name));
        }

        if (hog)
        {
            using Process hogProcess = StartSelf("hog", "3600");
            try
            {
                foreach (Scenario scenario in scenarios)
                    hogResults[scenario.Name] = await RunOneAsync(scenario.Name);
            }
            finally
            {
                hogProcess.Kill(entireProcessTree: true);
            }
        }

        Console.WriteLine(Table(scenarios, results, hogResults, runs, hog, watch.Elapsed));
        Console.WriteLine(TimeToDetect.Markdown(TimeToDetect.PerScenario(Times(scenarios, results, hogResults)), runs, DetectWithin));
        return 0;
    }

    /// <summary>The time to detect the issue asks of every kind, in seconds after the onset.</summary>
    internal const double DetectWithin = 2;

    private static IEnumerable<TimeToDetect.Scenario> Times(List<Scenario> scenarios, Dictionary<string, List<RunResult>> results, Dictionary<string, RunResult> hogResults) =>
        scenarios.Where(s => !s.Clean).Select(s => new TimeToDetect.Scenario(
            s.Name, OnsetText(results[s.Name]), [.. s.Expected.Keys.Select(k => k.ToString())],
            [.. results[s.Name].Select(r => (IReadOnlyDictionary<string, double[]>)(r.Arrivals ?? []))],
            hogResults.TryGetValue(s.Name, out RunResult? h) ? h.Arrivals ?? [] : null));

    /// <summary>How the scenario's onset was defined (<see cref="ScenarioRun.OnsetDefinition"/>) and the median seconds from the run's start to it.</summary>
    private static string OnsetText(List<RunResult> runs) =>
        runs.Count == 0 ? "-" : string.Create(
            CultureInfo.InvariantCulture,
            $"{string.Join(" / ", runs.Select(r => r.Onset).Distinct())}, +{TimeToDetect.Median([.. runs.Select(r => r.OnsetSeconds)]):0.00} s");

    private static async Task<RunResult> RunOneAsync(string name)
    {
        using Process process = StartSelf("run", name);
        Task<string> stdout = process.StandardOutput.ReadToEndAsync();
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        using var limit = new CancellationTokenSource(ScenarioHost.Limit + TimeSpan.FromSeconds(30));
        try
        {
            await process.WaitForExitAsync(limit.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
        }

        ResumeServer();
        string line = (await stdout).Split('\n', StringSplitOptions.RemoveEmptyEntries).LastOrDefault(l => l.StartsWith('{')) ?? "";
        RunResult result = line.Length > 0
            ? JsonSerializer.Deserialize<RunResult>(line)!
            : new RunResult(name, [], [], 0, 0, 0, "no result: " + (await stderr).Trim());
        string times = result.Arrivals is null ? "" : string.Join(", ", result.Arrivals.Select(a => $"{a.Key} +{a.Value[0]:0.00} s"));
        Console.Error.WriteLine($"{name}: fired [{string.Join(", ", result.Fired)}] in {result.Seconds:0.0} s" +
                                (times.Length == 0 ? "" : $", first after onset ({result.Onset}, +{result.OnsetSeconds:0.00} s): {times}") +
                                (result.Error is null ? "" : $" ERROR {result.Error}") +
                                (result.ConnectTimeouts > 0 ? $", {result.ConnectTimeouts} connect(s) timed out" : "") + $" (runtime starvation adjustments {result.RuntimeStarvation}, blocking {result.RuntimeBlocking})");
        if (Environment.GetEnvironmentVariable("ORSEIS_SCENARIO_VERBOSE") == "1")
        {
            foreach ((string kind, string[] messages) in result.Messages)
                Console.Error.WriteLine($"  {kind}: {messages[0]}");
        }

        return result;
    }

    /// <summary>A scenario that paused the server and was killed must not leave it paused.</summary>
    private static void ResumeServer()
    {
        if (Environment.GetEnvironmentVariable("ORSEIS_MYSQL_PID") is { Length: > 0 })
            Server.Pause(false);
    }

    internal static Process StartSelf(params string[] args) => StartSelf(redirectInput: false, args);

    internal static Process StartSelf(bool redirectInput, params string[] args) => Process.Start(SelfStartInfo(redirectInput, args))!;

    /// <summary>How to start this program again with <paramref name="args"/>, its output redirected.</summary>
    internal static ProcessStartInfo SelfStartInfo(bool redirectInput, params string[] args)
    {
        var start = new ProcessStartInfo(Environment.ProcessPath!)
        {
            RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = redirectInput, UseShellExecute = false,
        };
        // Started as `dotnet Orseis.Scenarios.dll`, the host needs the entry assembly again; the apphost does not.
        if (Path.GetFileNameWithoutExtension(Environment.ProcessPath!).Equals("dotnet", StringComparison.Ordinal))
            start.ArgumentList.Add(typeof(SuiteRunner).Assembly.Location);
        foreach (string arg in args)
            start.ArgumentList.Add(arg);
        return start;
    }

    private static string Table(List<Scenario> scenarios, Dictionary<string, List<RunResult>> results, Dictionary<string, RunResult> hogResults, int runs, bool hog, TimeSpan elapsed)
    {
        int tp = 0, fp = 0, fn = 0;
        var s = new StringBuilder();
        s.AppendLine(CultureInfo.InvariantCulture, $"| scenario | expected | fired (in {runs} runs) | cause named | beside CPU hog | result |");
        s.AppendLine("|---|---|---|---|---|---|");
        foreach (Scenario scenario in scenarios)
        {
            List<RunResult> all = [.. results[scenario.Name]];
            if (hogResults.TryGetValue(scenario.Name, out RunResult? h))
                all.Add(h);
            bool ok = true;
            foreach (RunResult run in all)
            {
                ScenarioScore.Score score = Score(scenario, run);
                tp += score.Fired;
                fp += score.Unexpected;
                fn += score.Missed;
                ok &= score.Pass;
                if (!score.Pass)
                    Console.Error.WriteLine($"{scenario.Name}: a run fails: {score.Why}");
            }

            string fired = string.Join(", ", results[scenario.Name].SelectMany(r => r.Fired).GroupBy(k => k).Select(g => $"{g.Key} {g.Count()}/{runs}").DefaultIfEmpty("none"));
            int causes = results[scenario.Name].Count(r => Score(scenario, r).CauseNamed);
            int timedOut = results[scenario.Name].Count(r => r.ConnectTimeouts > 0);
            string hogText = h is null ? "not run" : h.Fired.Length == 0 ? "none" : string.Join(", ", h.Fired) + (scenario.Clean ? "" : Score(scenario, h).CauseNamed ? " (cause named)" : " (cause NOT named)");
            string expected = (scenario.Clean ? "silent" : string.Join(", ", scenario.Expected.Keys)) +
                              (scenario.WhenConnectsTimedOut is { Count: > 0 } also && (timedOut > 0 || h?.ConnectTimeouts > 0)
                                  ? $"; connects timed out in {timedOut}/{runs}{(h?.ConnectTimeouts > 0 ? " and beside the hog" : "")}: {string.Join(", ", also.Keys)} there"
                                  : "");
            s.AppendLine(CultureInfo.InvariantCulture, $"| {scenario.Name} | {expected} | {fired} | {(scenario.Clean ? "-" : $"{causes}/{runs}")} | {hogText} | {(ok ? "pass" : "FAIL")} |");
        }

        double precision = tp + fp == 0 ? 1 : (double)tp / (tp + fp);
        double recall = tp + fn == 0 ? 1 : (double)tp / (tp + fn);
        s.AppendLine();
        s.AppendLine(CultureInfo.InvariantCulture, $"Over {runs} runs{(hog ? " and one beside a CPU hog" : "")} of each scenario: {tp} expected findings fired, {fp} unexpected, {fn} missed; " +
                                                   $"precision {precision:0.000}, recall {recall:0.000}. Suite time {elapsed.TotalMinutes:0.0} min.");
        return s.ToString();
    }

    /// <summary>One run scored against what it observed (<see cref="ScenarioScore"/>): conditional findings count only where connects timed out.</summary>
    private static ScenarioScore.Score Score(Scenario scenario, RunResult run) => ScenarioScore.Of(
        new ScenarioScore.Run(run.Messages, run.Error, run.ConnectTimeouts),
        scenario.Expected.ToDictionary(e => e.Key.ToString(), e => e.Value),
        scenario.WhenConnectsTimedOut?.ToDictionary(e => e.Key.ToString(), e => e.Value));
}
