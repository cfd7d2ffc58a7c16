using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Reports;

namespace Orseis.Benchmarks.Study.Analysis;

/// <summary>
/// Splits a study case's timed calls back into its two modes: call i (0-based, in the order BenchmarkDotNet measured
/// them) timed the variant when <see cref="StudySizes.IsVariantCall"/> says so, reuse otherwise.
/// </summary>
public static class PairedTimings
{
    /// <summary>
    /// The time of N queries in each mode: the fastest call of the mode divided by its batches. Null unless the case
    /// timed both modes.
    /// </summary>
    public static (double ReuseNs, double VariantNs)? Of(BenchmarkReport report)
    {
        if (report.BenchmarkCase.Descriptor.Type != typeof(RatioStudy))
            return null;
        int n = (int)report.BenchmarkCase.Parameters[nameof(StudyParameters.N)];
        int round = (int)report.BenchmarkCase.Parameters[nameof(StudyParameters.Round)];
        string variant = report.BenchmarkCase.Descriptor.WorkloadMethod.Name;
        double[] calls = [.. report.AllMeasurements
            .Where(m => m.IterationMode == IterationMode.Workload && m.IterationStage == IterationStage.Actual)
            .OrderBy(m => m.LaunchIndex).ThenBy(m => m.IterationIndex)
            .Select(m => m.Nanoseconds / m.Operations)];
        double[] reuse = [.. calls.Where((_, i) => !StudySizes.IsVariantCall(i, round))];
        double[] varied = [.. calls.Where((_, i) => StudySizes.IsVariantCall(i, round))];
        if (reuse.Length == 0 || varied.Length == 0)
            return null;
        return (reuse.Min() / StudySizes.Batches(StudySizes.Reuse, n), varied.Min() / StudySizes.Batches(variant, n));
    }
}
