using System.Diagnostics;
using System.Text.Json;
using Orseis.Diagnostics;
using Orseis.Testing;

namespace Orseis.Scenarios;

/// <summary>
/// The result of one scenario run: what fired (with messages), the runtime's own starvation count, and when: the onset
/// (seconds after the run began; <paramref name="Onset"/> says how it was defined, <see cref="ScenarioRun.OnsetDefinition"/>) and each kind's
/// arrivals in seconds after the onset.
/// </summary>
internal sealed record RunResult(
    string Scenario, string[] Fired, Dictionary<string, string[]> Messages, int RuntimeStarvation, int RuntimeBlocking, double Seconds, string? Error,
    double OnsetSeconds = 0, string Onset = "load start", Dictionary<string, double[]>? Arrivals = null, int ConnectTimeouts = 0);

/// <summary>Runs one scenario in this process, bounded in time, and prints its result as one JSON line.</summary>
internal static class ScenarioHost
{
    public static readonly TimeSpan Limit = TimeSpan.FromSeconds(40);

    public static async Task<int> RunAsync(string name)
    {
        Scenario scenario = Catalog.All.FirstOrDefault(s => s.Name == name) ?? throw new ScenarioSetupException($"no scenario '{name}'");
        using var runtime = new RuntimeThreadPoolEvents();
        using var stop = new CancellationTokenSource(Limit);
        var run = new ScenarioRun(stop.Token);
        ScenarioRun.Current = run;
        var watch = Stopwatch.StartNew();
        string? error = null;
        try
        {
            await scenario.Body(run).WaitAsync(stop.Token);
        }
        catch (Exception e)
        {
            error = $"{e.GetType().Name}: {e.Message}";
        }

        var fired = new SortedSet<string>();
        var messages = new Dictionary<string, string[]>();
        foreach (Database db in run.Databases)
        {
            PoolReport report = db.GetPoolReport();
            foreach (IGrouping<FindingKind, PoolFinding> kind in report.Findings.GroupBy(f => f.Kind))
            {
                fired.Add(kind.Key.ToString());
                messages[kind.Key.ToString()] = [.. (messages.GetValueOrDefault(kind.Key.ToString()) ?? []).Concat(kind.Select(f => f.Message + (f.Location is null ? "" : " @ " + f.Location)))];
            }

            if (Environment.GetEnvironmentVariable("ORSEIS_SCENARIO_REPORT") == "1")
                Console.Error.WriteLine(report);
        }

        var result = new RunResult(name, [.. fired], messages, runtime.Starvation, runtime.CooperativeBlocking, watch.Elapsed.TotalSeconds, error,
            run.OnsetSeconds, run.OnsetDefinition, run.Arrivals.Since(run.Onset), run.ConnectTimeouts);
        Console.WriteLine(JsonSerializer.Serialize(result));
        foreach (Database db in run.Databases)
            await db.DisposeAsync();
        return 0;
    }
}
