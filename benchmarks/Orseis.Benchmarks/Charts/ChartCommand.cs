using Orseis.Benchmarks.Study;
using Orseis.Benchmarks.Study.Analysis;

namespace Orseis.Benchmarks.Charts;

/// <summary>
/// <c>chart [[label=]results-dir-or-file ...] [--out dir]</c>: reads the <c>study-*.json</c> files that study runs write
/// (each folder's, or a file named directly; default <c>BenchmarkDotNet.Artifacts/results</c>) and writes, into
/// <c>--out</c>, the ratio chart of every provider together (<c>ratio-per-n.png/.svg</c>), one time-per-N chart per
/// provider and <c>ratio-per-n.md</c> with the numbers behind them. A <c>label=</c> prefix renames the provider of
/// that input's results (for two runs of one provider). Two runs of one provider are accepted unlabelled only when
/// they measured different variants (the scope variants run on their own beside a study without them).
/// </summary>
public static class ChartCommand
{
    /// <summary>Draws the charts; returns the process exit code.</summary>
    public static int Run(IReadOnlyList<string> inputs, string output)
    {
        if (inputs.Count == 0)
            inputs = [Path.Combine("BenchmarkDotNet.Artifacts", "results")];
        var runs = new List<StudyResults>();
        foreach (string input in inputs)
        {
            // "label=folder", unless the whole argument is a folder or a file (a path may contain '=').
            int equals = Directory.Exists(input) || File.Exists(input) ? -1 : input.IndexOf('=', StringComparison.Ordinal);
            string? label = equals < 0 ? null : input[..equals];
            string directory = equals < 0 ? input : input[(equals + 1)..];
            if (label is not null && !IsLabel(label))
            {
                Console.Error.WriteLine($"Invalid label '{label}' in '{input}': use lower-case letters, digits and '-' (it becomes part of a file name).");
                return 1;
            }

            bool isFile = File.Exists(directory);
            if (!isFile && !Directory.Exists(directory))
            {
                Console.Error.WriteLine($"No such results folder or file: {directory}");
                return 1;
            }

            string[] files = isFile ? [directory] : [.. Directory.EnumerateFiles(directory, "study-*.json").Order(StringComparer.Ordinal)];
            foreach (string file in files)
            {
                StudyResults run = StudyResults.Read(file);
                runs.Add(label is null ? run : run with { Provider = label });
            }
        }

        if (runs.Count == 0)
        {
            Console.Error.WriteLine($"No study results (study-*.json) found in: {string.Join(", ", inputs)}");
            return 1;
        }

        // Two runs of one provider (say MySqlConnector and MySql.Data, both 'mysql' before labelling) must not blend:
        // they may share a provider only when no library and variant is in both.
        if (runs.GroupBy(r => r.Provider).FirstOrDefault(g => Overlap(g)) is { } twice)
        {
            Console.Error.WriteLine($"Provider '{twice.Key}' is in more than one results file with the same variants: name each folder's provider with label=folder.");
            return 1;
        }

        // The runs of one provider next to each other, in the order the provider first came.
        string[] providers = [.. runs.Select(r => r.Provider).Distinct()];
        runs = [.. runs.OrderBy(r => Array.IndexOf(providers, r.Provider))];

        Directory.CreateDirectory(output);
        var written = new List<string>();
        written.AddRange(StudyCharts.Ratio(runs, Path.Combine(output, "ratio-per-n")));
        // One time chart per provider, from its first run that has open-per-call lines (a scope-only run has none).
        foreach (IGrouping<string, StudyResults> provider in runs.GroupBy(r => r.Provider))
        {
            if (provider.FirstOrDefault(r => r.Points.Any(p => p.Variant == nameof(RatioStudy.OpenPerCall))) is { } run)
                written.AddRange(StudyCharts.TimePerN(run, Path.Combine(output, $"time-per-n-{run.Provider}")));
        }
        string table = Path.Combine(output, "ratio-per-n.md");
        File.WriteAllText(table, StudySummary.Markdown(runs, "Open per call, a connection scope and a session against reuse, per provider and N"));
        written.Add(table);
        foreach (string file in written)
            Console.WriteLine($"wrote {file}");
        return 0;
    }

    private static bool Overlap(IEnumerable<StudyResults> runs)
    {
        var seen = new HashSet<(string, string)>();
        foreach (StudyResults run in runs)
        {
            foreach ((string, string) line in run.Points.Select(p => (p.Library, p.Variant)).Distinct())
            {
                if (!seen.Add(line))
                    return true;
            }
        }

        return false;
    }

    private static bool IsLabel(string label) =>
        label.Length > 0 && label.All(c => c is (>= 'a' and <= 'z') or (>= '0' and <= '9') or '-');
}
