using System.Diagnostics;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Filters;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Orseis.Benchmarks.Charts;
using Orseis.Benchmarks.Study;
using Orseis.Benchmarks.Study.Analysis;

namespace Orseis.Benchmarks.Infrastructure;

/// <summary>
/// The default command: runs BenchmarkDotNet's switcher on one provider; after a study run, writes the study's
/// results (<c>study-&lt;provider&gt;.json</c> and <c>.md</c>, every round's paired timings merged) and charts in
/// BenchmarkDotNet's results folder and ends with the closing summary.
/// </summary>
public static class BenchmarkCommand
{
    /// <summary>
    /// Runs; returns the exit code. <paramref name="studyRound"/> (the hidden <see cref="StudyProcesses.RoundOption"/>)
    /// makes this process one round of the study; otherwise a <c>--filter</c> that selects the study runs it one round
    /// per process (<see cref="StudyProcesses"/>) and the other selected classes here.
    /// </summary>
    public static int Run(
        string[] benchmarkArgs, string? provider, int? rounds, int? maxN, string? clock, bool verbose, int? studyRound = null)
    {
        if (ProviderOption.Apply(provider) is { } exitCode)
            return exitCode;
        if (rounds is { } r)
            Environment.SetEnvironmentVariable(StudySizes.RoundsVariable, r.ToString(System.Globalization.CultureInfo.InvariantCulture));
        if (clock is not null)
            Environment.SetEnvironmentVariable(StudyConfig.ClockVariable, clock);
        if (maxN is { } m)
            Environment.SetEnvironmentVariable(StudySizes.MaxNVariable, m.ToString(System.Globalization.CultureInfo.InvariantCulture));

        ILogger logger = verbose ? ConsoleLogger.Default : new ProgressLogger();
        if (studyRound is { } round)
            return StudyProcesses.RunRound(benchmarkArgs, round, logger);

        int failed = 0;
        string? studySummary = null;
        var config = new Config(logger);
        if (StudyProcesses.Selects(benchmarkArgs))
        {
            (StudyResults? results, string folder, int failedRounds) = StudyProcesses.Run(benchmarkArgs, verbose);
            failed += failedRounds;
            if (results is { Points.Count: > 0 })
            {
                string roundFolders = $"{folder}/{StudyProcesses.RoundsFolder}/round-*/";
                studySummary = Write(results, folder, $"{roundFolders}: each round's BenchmarkDotNet reports (results/) and log");
            }

            if (!StudyProcesses.SelectsOthers(benchmarkArgs))
            {
                Console.Write(studySummary);
                return failed == 0 ? 0 : 1;
            }

            config.AddFilter(new SimpleFilter(c => c.Descriptor.Type != typeof(RatioStudy)));
        }

        DateTime started = DateTime.UtcNow;
        var wall = Stopwatch.StartNew();
        Summary[] summaries = [.. BenchmarkSwitcher.FromAssembly(typeof(BenchmarkCommand).Assembly).Run(benchmarkArgs, config)];
        wall.Stop();

        foreach (Summary summary in summaries)
        {
            failed += summary.Reports.Count(r => !r.Success) + summary.ValidationErrors.Count(e => e.IsCritical);
            bool study = summary.BenchmarksCases.Any(c => c.Descriptor.Type == typeof(RatioStudy));
            if (!study)
            {
                if (!verbose)
                    MarkdownExporter.Console.ExportToLog(summary, ConsoleLogger.Default);
                continue;
            }

            // The study chosen from BenchmarkDotNet's menu (no --filter) runs all its rounds in this process.
            StudyResults results = StudyStatistics.FromSummary(summary, started, wall.Elapsed.TotalSeconds);
            if (results.Points.Count > 0)
            {
                string folder = summary.ResultsDirectoryPath;
                Console.Write(Write(results, folder, $"{folder}/*-report-github.md, *.csv, *-report-brief.json (BenchmarkDotNet), log in {Path.GetDirectoryName(folder)}"));
            }
        }

        Console.Write(studySummary);
        return failed == 0 ? 0 : 1;
    }

    /// <summary>Writes the study's files and charts to <paramref name="folder"/>; returns the closing summary.</summary>
    private static string Write(StudyResults results, string folder, string reports)
    {
        Directory.CreateDirectory(folder);
        string json = Path.Combine(folder, StudyResults.FileName(results.Provider));
        string markdown = Path.ChangeExtension(json, ".md");
        results.Write(json);
        File.WriteAllText(markdown, StudySummary.Markdown([results], $"Open per call / reuse on {results.Provider}"));
        var files = new List<string> { json, markdown };
        files.AddRange(StudyCharts.Ratio([results], Path.Combine(folder, $"ratio-{results.Provider}")));
        files.AddRange(StudyCharts.TimePerN(results, Path.Combine(folder, $"time-per-n-{results.Provider}")));
        files.Add(reports);
        return StudySummary.Console(results, files) + Environment.NewLine;
    }
}
