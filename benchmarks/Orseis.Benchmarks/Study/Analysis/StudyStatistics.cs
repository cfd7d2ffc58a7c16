using BenchmarkDotNet.Reports;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Study.Analysis;

/// <summary>Turns a BenchmarkDotNet summary of <see cref="RatioStudy"/> into paired ratios per round.</summary>
public static class StudyStatistics
{
    /// <summary>
    /// One point per library, variant and N: each round's case gives the time of N queries with reuse and with the
    /// variant (<see cref="PairedTimings"/>). Rounds whose case failed are left out of that point.
    /// </summary>
    public static StudyResults FromSummary(Summary summary, DateTime started, double seconds)
    {
        var points = summary.Reports
            .Select(r => (Report: r, Pair: PairedTimings.Of(r)))
            .Where(x => x.Pair is not null)
            .GroupBy(x => ((string)Param(x.Report, nameof(StudyParameters.Library)), x.Report.BenchmarkCase.Descriptor.WorkloadMethod.Name, (int)Param(x.Report, nameof(StudyParameters.N))))
            .Select(g =>
            {
                var rounds = g.OrderBy(x => (int)Param(x.Report, nameof(StudyParameters.Round))).ToList();
                return new StudyPoint(g.Key.Item1, g.Key.Name, g.Key.Item3, [.. rounds.Select(x => x.Pair!.Value.ReuseNs)], [.. rounds.Select(x => x.Pair!.Value.VariantNs)]);
            })
            .OrderBy(p => p.Library == StudyParameters.Orseis ? 0 : 1).ThenBy(p => p.Variant, StringComparer.Ordinal).ThenBy(p => p.N)
            .ToList();
        BenchProvider provider = BenchProviders.Current;
        int rounds = summary.BenchmarksCases.Length == 0 ? 0 : summary.BenchmarksCases.Max(c => (int)c.Parameters[nameof(StudyParameters.Round)]);
        string clock = StudyConfig.UsesThreadCpuClock ? "thread CPU time" : "wall time";
        return new StudyResults(BenchProviders.Name(provider), ProviderFactories.Describe(ProviderFactories.Factory(provider)), rounds, clock, started, seconds, points);
    }

    private static object Param(BenchmarkReport report, string name) =>
        report.BenchmarkCase.Parameters.Items.First(p => p.Name == name).Value;
}
