using BenchmarkDotNet.Reports;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Study.Analysis;

/// <summary>Turns BenchmarkDotNet summaries of <see cref="RatioStudy"/> into paired ratios per round, and joins rounds.</summary>
public static class StudyStatistics
{
    /// <summary>
    /// One point per library, variant and N: each round's case gives the time of N queries with reuse and with the
    /// variant (<see cref="PairedTimings"/>), measured by this process. Rounds whose case failed are left out of that
    /// point.
    /// </summary>
    public static StudyResults FromSummary(Summary summary, DateTime started, double seconds)
    {
        int process = Environment.ProcessId;
        var points = summary.Reports
            .Select(r => (Report: r, Pair: PairedTimings.Of(r)))
            .Where(x => x.Pair is not null)
            .GroupBy(x => ((string)Param(x.Report, nameof(StudyParameters.Library)), x.Report.BenchmarkCase.Descriptor.WorkloadMethod.Name, (int)Param(x.Report, nameof(StudyParameters.N))))
            .Select(g =>
            {
                var rounds = g.OrderBy(x => (int)Param(x.Report, nameof(StudyParameters.Round))).ToList();
                return new StudyPoint(
                    g.Key.Item1, g.Key.Name, g.Key.Item3,
                    [.. rounds.Select(x => x.Pair!.Value.ReuseNs)], [.. rounds.Select(x => x.Pair!.Value.VariantNs)], [.. rounds.Select(_ => process)]);
            });
        BenchProvider provider = BenchProviders.Current;
        int rounds = summary.BenchmarksCases.Select(c => (int)c.Parameters[nameof(StudyParameters.Round)]).Distinct().Count();
        string clock = StudyConfig.UsesThreadCpuClock ? "thread CPU time" : "wall time";
        return new StudyResults(BenchProviders.Name(provider), ProviderFactories.Describe(ProviderFactories.Factory(provider)), rounds, clock, started, seconds, Ordered(points));
    }

    /// <summary>
    /// Joins the results of runs that each measured some rounds (in the study, one process per round) into one run: each
    /// point holds every run's paired timings of its library, variant and N, in the order of <paramref name="runs"/>, so
    /// its ratio and interval are those of all the rounds together.
    /// </summary>
    public static StudyResults Merge(IReadOnlyList<StudyResults> runs, DateTime started, double seconds)
    {
        if (runs.Count == 0)
            throw new ArgumentException("There are no study results to merge.", nameof(runs));
        StudyResults first = runs[0];
        if (runs.FirstOrDefault(r => r.Provider != first.Provider || r.Clock != first.Clock) is { } other)
        {
            throw new ArgumentException(
                $"Study results of {first.Provider} ({first.Clock}) and {other.Provider} ({other.Clock}) cannot be merged.", nameof(runs));
        }

        var points = runs.SelectMany(r => r.Points)
            .GroupBy(p => (p.Library, p.Variant, p.N))
            .Select(g => new StudyPoint(
                g.Key.Library, g.Key.Variant, g.Key.N, [.. g.SelectMany(p => p.ReuseNs)], [.. g.SelectMany(p => p.VariantNs)],
                g.All(p => p.Processes is not null) ? [.. g.SelectMany(p => p.Processes!)] : null));
        return new StudyResults(first.Provider, first.Package, runs.Sum(r => r.Rounds), first.Clock, started, seconds, Ordered(points));
    }

    private static List<StudyPoint> Ordered(IEnumerable<StudyPoint> points) =>
        [.. points.OrderBy(p => p.Library == StudyParameters.Orseis ? 0 : 1)
            .ThenBy(p => p.Variant, StringComparer.Ordinal).ThenBy(p => p.N)];

    private static object Param(BenchmarkReport report, string name) =>
        report.BenchmarkCase.Parameters.Items.First(p => p.Name == name).Value;
}
