using System.Diagnostics;
using System.Globalization;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Filters;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Orseis.Benchmarks.Study.Analysis;

namespace Orseis.Benchmarks.Study;

/// <summary>
/// Runs the study one round per process: each round is measured by a fresh process of this program (warmed up by
/// <see cref="StudyWarmup"/> as any process is), which writes its round's paired timings; the rounds are then merged
/// (<see cref="StudyStatistics.Merge"/>). A process's JIT-compiled code, and so its speed, differs a little from one
/// process to the next and stays the same for the process's life: rounds measured in one process would all share it,
/// and their interval would not cover what another run measures. One round per process makes every round an
/// independent draw of that effect too, which is what the order-statistic interval assumes.
/// </summary>
public static class StudyProcesses
{
    /// <summary>The hidden option that makes the program measure one round and write its results (the round's process).</summary>
    public const string RoundOption = "--study-round";

    /// <summary>The folder, in BenchmarkDotNet's results folder, holding each round's artifacts folder.</summary>
    public const string RoundsFolder = "rounds";

    /// <summary>Whether <paramref name="args"/> (BenchmarkDotNet's) select study cases with <c>--filter</c> to run.</summary>
    public static bool Selects(string[] args) => Selects(args, [typeof(RatioStudy)]);

    /// <summary>Whether <paramref name="args"/> also select cases of other benchmark classes.</summary>
    public static bool SelectsOthers(string[] args) =>
        Selects(args, typeof(StudyProcesses).Assembly.GetTypes().Where(t => t != typeof(RatioStudy) && !t.IsAbstract &&
            t.GetMethods().Any(m => m.IsDefined(typeof(BenchmarkDotNet.Attributes.BenchmarkAttribute), true))));

    /// <summary>
    /// Runs every round (<see cref="StudySizes.Rounds"/>) in its own process, one after the other, and merges what they
    /// measured. Returns the merged results (null when no round gave any), BenchmarkDotNet's results folder (where the
    /// rounds' folders are) and the number of rounds whose process failed.
    /// </summary>
    public static (StudyResults? Results, string Folder, int Failed) Run(string[] args, bool verbose)
    {
        string artifacts = Values(args, "--artifacts").LastOrDefault() is { } path
            ? Path.GetFullPath(path)
            : DefaultConfig.Instance.ArtifactsPath;
        string results = Path.Combine(artifacts, "results");
        string roundsFolder = Path.Combine(results, RoundsFolder);
        if (Directory.Exists(roundsFolder))
            Directory.Delete(roundsFolder, recursive: true);
        string[] roundArgs = Without(args, "--artifacts");
        string file = StudyResults.FileName(Infrastructure.BenchProviders.Name(Infrastructure.BenchProviders.Current));
        int rounds = StudySizes.Rounds;

        DateTime started = DateTime.UtcNow;
        var wall = Stopwatch.StartNew();
        var runs = new List<StudyResults>();
        int failed = 0;
        for (int round = 1; round <= rounds; round++)
        {
            string folder = Path.Combine(roundsFolder, Invariant($"round-{round:D2}"));
            (int exitCode, int process) = RunProcess(roundArgs, round, folder, verbose);
            string json = Path.Combine(folder, "results", file);
            if (File.Exists(json))
                runs.Add(StudyResults.Read(json));
            if (exitCode != 0 || !File.Exists(json))
            {
                failed++;
                string what = File.Exists(json) ? "" : ", no results";
                Console.Error.WriteLine(Invariant($"Round {round}: process {process} exited with {exitCode}{what}; its log is in {folder}"));
            }

            TimeSpan left = wall.Elapsed / round * (rounds - round);
            Console.WriteLine(Invariant(
                $"Round {round}/{rounds} measured by process {process}; {wall.Elapsed.TotalMinutes:F1} min so far, about {left.TotalMinutes:F1} min to go"));
        }

        wall.Stop();
        return (runs.Count == 0 ? null : StudyStatistics.Merge(runs, started, wall.Elapsed.TotalSeconds), results, failed);
    }

    /// <summary>
    /// A round's process: measures round <paramref name="round"/> of every selected study case (all N, both libraries,
    /// every variant) and writes its results (<c>study-&lt;provider&gt;.json</c>) next to BenchmarkDotNet's reports.
    /// Returns 0, or 1 when a case failed or nothing ran.
    /// </summary>
    public static int RunRound(string[] args, int round, ILogger logger)
    {
        Environment.SetEnvironmentVariable(StudySizes.RoundVariable, round.ToString(CultureInfo.InvariantCulture));
        DateTime started = DateTime.UtcNow;
        var wall = Stopwatch.StartNew();
        IConfig config = new Config(logger).AddFilter(new SimpleFilter(c => c.Descriptor.Type == typeof(RatioStudy)));
        Summary[] summaries = [.. BenchmarkSwitcher.FromAssembly(typeof(StudyProcesses).Assembly).Run(args, config)];
        wall.Stop();
        Summary? summary = summaries.FirstOrDefault(s => s.BenchmarksCases.Any(c => c.Descriptor.Type == typeof(RatioStudy)));
        if (summary is null)
            return 1;
        StudyResults results = StudyStatistics.FromSummary(summary, started, wall.Elapsed.TotalSeconds);
        results.Write(Path.Combine(summary.ResultsDirectoryPath, StudyResults.FileName(results.Provider)));
        int failed = summary.Reports.Count(r => !r.Success) + summary.ValidationErrors.Count(e => e.IsCritical);
        return failed == 0 && results.Points.Count > 0 ? 0 : 1;
    }

    /// <summary>Starts this program on one round (as <c>Orseis.Scenarios</c>' SuiteRunner starts itself) and waits for it.</summary>
    private static (int ExitCode, int Process) RunProcess(string[] args, int round, string artifacts, bool verbose)
    {
        var start = new ProcessStartInfo(Environment.ProcessPath!) { UseShellExecute = false, RedirectStandardOutput = !verbose };
        // Started as `dotnet Orseis.Benchmarks.dll` (or from a test host), the host needs the program's assembly; the apphost does not.
        if (Path.GetFileNameWithoutExtension(Environment.ProcessPath!).Equals("dotnet", StringComparison.Ordinal))
            start.ArgumentList.Add(typeof(StudyProcesses).Assembly.Location);
        foreach (string arg in args)
            start.ArgumentList.Add(arg);
        foreach (string arg in new[] { "--artifacts", artifacts, RoundOption, round.ToString(CultureInfo.InvariantCulture) })
            start.ArgumentList.Add(arg);
        if (verbose)
            start.ArgumentList.Add("--verbose");

        using Process process = Process.Start(start)!;
        // Without --verbose the round's console output (its progress lines) is dropped: the run prints its own progress,
        // errors still reach the console (stderr is inherited) and BenchmarkDotNet's log file has everything.
        if (!verbose)
        {
            process.OutputDataReceived += (_, _) => { };
            process.BeginOutputReadLine();
        }

        process.WaitForExit();
        return (process.ExitCode, process.Id);
    }

    private static bool Selects(string[] args, IEnumerable<Type> types)
    {
        string[] patterns = Values(args, "--filter", "-f");
        if (patterns.Length == 0 || args.Contains("--list"))
            return false;
        var filter = new GlobFilter(patterns);
        return types.Any(t => BenchmarkConverter.TypeToBenchmarks(t).BenchmarksCases.Any(filter.Predicate));
    }

    /// <summary>The values following any of <paramref name="names"/> (up to the next option).</summary>
    private static string[] Values(string[] args, params string[] names)
    {
        var values = new List<string>();
        for (int i = 0; i < args.Length; i++)
        {
            if (!names.Contains(args[i]))
                continue;
            for (i++; i < args.Length && !args[i].StartsWith('-'); i++)
                values.Add(args[i]);
            i--;
        }

        return [.. values];
    }

    /// <summary><paramref name="args"/> without <paramref name="name"/> and its values.</summary>
    private static string[] Without(string[] args, string name)
    {
        var kept = new List<string>();
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] != name)
            {
                kept.Add(args[i]);
                continue;
            }

            while (i + 1 < args.Length && !args[i + 1].StartsWith('-'))
                i++;
        }

        return [.. kept];
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
