using System.Globalization;
using System.Text;

namespace Orseis.Benchmarks.Charts;

/// <summary>
/// <c>chart [[label=]results-dir ...] [--out dir]</c>: reads the study's brief JSON reports (default
/// <c>BenchmarkDotNet.Artifacts/results</c>) and writes, into <c>--out</c> (default <c>docs/results</c>), one
/// time-per-N chart per provider (log-log, every variant, Orseis solid and raw ADO.NET dashed), a ratio-per-N chart
/// with one line per provider, and <c>ratio-per-n.md</c> with the numbers behind it. A <c>label=</c> prefix names the
/// provider of that folder's results instead of their Provider parameter: two runs of one provider through different
/// client libraries (MariaDB through MySqlConnector and through MySql.Data) both say <c>Provider=mysql</c>.
/// </summary>
public static class ChartCommand
{
    /// <summary>Runs the command; returns the process exit code.</summary>
    public static int Run(string[] args)
    {
        string output = "docs/results";
        var inputs = new List<string>();
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] == "--out" && i + 1 < args.Length)
                output = args[++i];
            else
                inputs.Add(args[i]);
        }

        if (inputs.Count == 0)
            inputs.Add(Path.Combine("BenchmarkDotNet.Artifacts", "results"));
        var results = new List<StudyResult>();
        foreach (string input in inputs)
        {
            // "label=folder", unless the whole argument is a folder (a path may contain '=').
            int equals = Directory.Exists(input) ? -1 : input.IndexOf('=', StringComparison.Ordinal);
            string? label = equals < 0 ? null : input[..equals];
            string directory = equals < 0 ? input : input[(equals + 1)..];
            if (label is not null && !IsLabel(label))
            {
                Console.Error.WriteLine($"Invalid label '{label}' in '{input}': use lower-case letters, digits and '-' (it becomes part of a file name).");
                return 1;
            }

            if (!Directory.Exists(directory))
            {
                Console.Error.WriteLine($"No such results folder: {directory}");
                return 1;
            }

            IEnumerable<StudyResult> read = StudyResult.ReadDirectory(directory);
            results.AddRange(label is null ? read : read.Select(r => r with { Provider = label }));
        }

        // Two folders of one provider (MySqlConnector and MySql.Data runs both say Provider=mysql) must not blend.
        if (results.GroupBy(r => (r.Provider, r.Family, r.Method, r.N)).FirstOrDefault(g => g.Count() > 1) is { } twice)
        {
            Console.Error.WriteLine(
                $"{twice.Key.Provider} {twice.Key.Family} {twice.Key.Method} N={twice.Key.N} is in more than one report: " +
                "name each folder's provider with label=folder.");
            return 1;
        }

        if (results.Count == 0)
        {
            Console.Error.WriteLine($"No RatioStudy/RawAdoStudy results (*-report-brief.json) found in: {string.Join(", ", inputs)}");
            return 1;
        }

        Directory.CreateDirectory(output);
        foreach (var provider in results.GroupBy(r => r.Provider))
        {
            var chart = new SvgLineChart { Title = $"Time for N sequential 'select 1' queries ({provider.Key})", XLabel = "N (queries)", YLabel = "time per N queries (ms), log scale" };
            foreach (var line in provider.GroupBy(r => (r.Family, r.Method)).OrderBy(g => g.Key.Family == "ADO.NET").ThenBy(g => g.Key.Method, StringComparer.Ordinal))
                chart.Series.Add(new ChartSeries($"{line.Key.Family} {line.Key.Method}", line.Select(r => ((double)r.N, r.MeanNs / 1e6)).ToList(), line.Key.Family == "ADO.NET"));
            Write(Path.Combine(output, $"time-per-n-{provider.Key}.svg"), chart.Render());
        }

        var ratios = Ratios(results);
        var ratioChart = new SvgLineChart { Title = "Open-per-call / reuse time ratio per N", XLabel = "N (queries)", YLabel = "ratio (OpenPerCall mean / Reuse mean)", LogY = false };
        foreach (var line in ratios.GroupBy(r => (r.Provider, r.Family)).OrderBy(g => g.Key.Provider, StringComparer.Ordinal).ThenBy(g => g.Key.Family == "ADO.NET"))
            ratioChart.Series.Add(new ChartSeries($"{line.Key.Provider} ({line.Key.Family})", line.Select(r => ((double)r.N, r.Ratio)).ToList(), line.Key.Family == "ADO.NET"));
        Write(Path.Combine(output, "ratio-per-n.svg"), ratioChart.Render());
        Write(Path.Combine(output, "ratio-per-n.md"), RatioTable(ratios));
        return 0;
    }

    private static bool IsLabel(string label) =>
        label.Length > 0 && label.All(c => c is (>= 'a' and <= 'z') or (>= '0' and <= '9') or '-');

    private static List<(string Provider, string Family, int N, double Reuse, double PerCall, double Ratio)> Ratios(List<StudyResult> results) =>
        results.GroupBy(r => (r.Provider, r.Family, r.N))
            .Select(g => (g.Key, Reuse: g.FirstOrDefault(r => r.Method == "Reuse"), PerCall: g.FirstOrDefault(r => r.Method == "OpenPerCall")))
            .Where(x => x.Reuse is not null && x.PerCall is not null)
            .Select(x => (x.Key.Provider, x.Key.Family, x.Key.N, x.Reuse!.MeanNs, x.PerCall!.MeanNs, x.PerCall.MeanNs / x.Reuse.MeanNs))
            .OrderBy(x => x.Provider, StringComparer.Ordinal).ThenBy(x => x.Family, StringComparer.Ordinal).ThenBy(x => x.N)
            .ToList();

    private static string RatioTable(List<(string Provider, string Family, int N, double Reuse, double PerCall, double Ratio)> ratios)
    {
        var text = new StringBuilder("# Ratio per N (generated by `chart` from BenchmarkDotNet's JSON; means, not medians)\n\n");
        text.Append("| Provider | Through | N | Reuse (ms) | OpenPerCall (ms) | Ratio | Open overhead per query (us) |\n|---|---|---:|---:|---:|---:|---:|\n");
        foreach (var r in ratios)
        {
            text.Append(CultureInfo.InvariantCulture,
                $"| {r.Provider} | {r.Family} | {r.N} | {r.Reuse / 1e6:F3} | {r.PerCall / 1e6:F3} | {r.Ratio:F2} | {(r.PerCall - r.Reuse) / r.N / 1e3:F2} |\n");
        }

        return text.ToString();
    }

    private static void Write(string path, string content)
    {
        File.WriteAllText(path, content);
        Console.WriteLine($"wrote {path}");
    }
}
