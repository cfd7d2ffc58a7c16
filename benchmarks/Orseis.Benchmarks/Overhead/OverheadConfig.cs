using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using Perfolizer.Horology;

namespace Orseis.Benchmarks.Overhead;

/// <summary>
/// The job for <see cref="DiagnosticsOverhead"/>: four processes per case, each with 3 warmup and 10 measured iterations
/// of about 500 ms. A process has its own code layout and JIT decisions, which move a round trip to a server by more
/// than the difference asked about; several launches per case put that spread into the reported error instead of
/// into the mean.
/// </summary>
public sealed class OverheadConfig : ManualConfig
{
    /// <summary>Adds the job.</summary>
    public OverheadConfig() =>
        AddJob(Job.Default.WithId("Overhead").WithLaunchCount(4).WithWarmupCount(3).WithIterationCount(10)
            .WithIterationTime(TimeInterval.FromMilliseconds(500)));
}
