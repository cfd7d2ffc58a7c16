using System.Diagnostics;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Orseis.Benchmarks.Charts;
using Orseis.Benchmarks.Study;
using Orseis.Benchmarks.Study.Analysis;

namespace Orseis.Benchmarks.Infrastructure;

/// <summary>
/// The default command: runs BenchmarkDotNet's switcher on one provider; after a study run, writes the study's
/// results (<c>study-&lt;provider&gt;.json</c> and <c>.md</c>) and charts next to BenchmarkDotNet's reports and ends
/// with the closing summary.
/// </summary>
public static class BenchmarkCommand
{
    /// <summary>Runs; returns the exit code.</summary>
    public static int Run(string[] benchmarkArgs, string? provider, int? rounds, int? maxN, string? clock, bool verbose)
    {
        if (ProviderOption.Apply(provider) is { } exitCode)
            return exitCode;
        if (rounds is { } r)
            Environment.SetEnvironmentVariable(StudySizes.RoundsVariable, r.ToString(System.Globalization.CultureInfo.InvariantCulture));
        if (clock is not null)
            Environment.SetEnvironmentVariable(StudyConfig.ClockVariable, clock);
        if (maxN is { } m)
            Environment.SetEnvironmentVariable(StudySizes.MaxNVariable, m.ToString(System.Globalization.CultureInfo.InvariantCulture));

        DateTime started = DateTime.UtcNow;
        var wall = Stopwatch.StartNew();
        ILogger logger = verbose ? ConsoleLogger.Default : new ProgressLogger();
        Summary[] summaries = [.. BenchmarkSwitcher.FromAssembly(typeof(BenchmarkCommand).Assembly).Run(benchmarkArgs, new Config(logger))];
        wall.Stop();

        int failed = 0;
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

            StudyResults results = StudyStatistics.FromSummary(summary, started, wall.Elapsed.TotalSeconds);
            if (results.Points.Count == 0)
                continue;
            string folder = summary.ResultsDirectoryPath;
            string json = Path.Combine(folder, StudyResults.FileName(results.Provider));
            string markdown = Path.ChangeExtension(json, ".md");
            results.Write(json);
            File.WriteAllText(markdown, StudySummary.Markdown([results], $"Open per call / reuse on {results.Provider}"));
            var files = new List<string> { json, markdown };
            files.AddRange(StudyCharts.Ratio([results], Path.Combine(folder, $"ratio-{results.Provider}")));
            files.AddRange(StudyCharts.TimePerN(results, Path.Combine(folder, $"time-per-n-{results.Provider}")));
            files.Add($"{folder}/*-report-github.md, *.csv, *-report-brief.json (BenchmarkDotNet), log in {Path.GetDirectoryName(folder)}");
            Console.WriteLine(StudySummary.Console(results, files));
        }

        return failed == 0 ? 0 : 1;
    }
}
