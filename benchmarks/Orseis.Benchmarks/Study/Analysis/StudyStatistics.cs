using BenchmarkDotNet.Reports;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Study.Analysis;

/// <summary>Turns a BenchmarkDotNet summary of <see cref="RatioStudy"/> into paired ratios per round.</summary>
public static class StudyStatistics
{
    /// <summary>
    /// Pairs each variant's case with the <see cref="RatioStudy.Reuse"/> case of the same library, N and round. A case's
    /// value is the fastest of its measured iterations divided by its batches: the time of N queries. Rounds where either case
    /// failed are left out of that point.
    /// </summary>
    public static StudyResults FromSummary(Summary summary, DateTime started, double seconds)
    {
        var cases = summary.Reports
            .Where(r => r.BenchmarkCase.Descriptor.Type == typeof(RatioStudy) && r.ResultStatistics is not null)
            .Select(r => (
                Library: (string)Param(r, nameof(StudyParameters.Library)),
                N: (int)Param(r, nameof(StudyParameters.N)),
                Round: (int)Param(r, nameof(StudyParameters.Round)),
                Method: r.BenchmarkCase.Descriptor.WorkloadMethod.Name,
                Ns: r.ResultStatistics!.Min / StudySizes.Batches(r.BenchmarkCase.Descriptor.WorkloadMethod.Name, (int)Param(r, nameof(StudyParameters.N)))))
            .ToList();
        var reuse = cases.Where(c => c.Method == nameof(RatioStudy.Reuse)).ToDictionary(c => (c.Library, c.N, c.Round), c => c.Ns);
        var points = cases.Where(c => c.Method != nameof(RatioStudy.Reuse) && reuse.ContainsKey((c.Library, c.N, c.Round)))
            .GroupBy(c => (c.Library, c.Method, c.N))
            .Select(g =>
            {
                var rounds = g.OrderBy(c => c.Round).ToList();
                return new StudyPoint(g.Key.Library, g.Key.Method, g.Key.N,
                    [.. rounds.Select(c => reuse[(c.Library, c.N, c.Round)])], [.. rounds.Select(c => c.Ns)]);
            })
            .OrderBy(p => p.Library == StudyParameters.Orseis ? 0 : 1).ThenBy(p => p.Variant, StringComparer.Ordinal).ThenBy(p => p.N)
            .ToList();
        BenchProvider provider = BenchProviders.Current;
        int rounds = cases.Count == 0 ? 0 : cases.Max(c => c.Round);
        string clock = StudyConfig.UsesThreadCpuClock ? "thread CPU time" : "wall time";
        return new StudyResults(BenchProviders.Name(provider), ProviderFactories.Describe(ProviderFactories.Factory(provider)), rounds, clock, started, seconds, points);
    }

    private static object Param(BenchmarkReport report, string name) =>
        report.BenchmarkCase.Parameters.Items.First(p => p.Name == name).Value;
}
