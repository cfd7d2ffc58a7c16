using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using Orseis.Benchmarks.Infrastructure;
using Perfolizer.Horology;

namespace Orseis.Benchmarks.Overhead;

/// <summary>
/// The job for <see cref="DiagnosticsOverhead"/>: four processes per case, each with 3 warmup and 10 measured iterations
/// of about 500 ms. A process has its own code layout and JIT decisions, which move a round trip to a server by more
/// than the difference asked about; several launches per case put that spread into the reported error instead of
/// into the mean. Side by side with an older Orseis (<see cref="BaselineJobs"/>) the job is doubled.
/// </summary>
public sealed class OverheadConfig : ManualConfig
{
    /// <summary>Adds the job.</summary>
    public OverheadConfig() =>
        BaselineJobs.Add(this, Job.Default.WithId("Overhead").WithLaunchCount(4).WithWarmupCount(3).WithIterationCount(10)
            .WithIterationTime(TimeInterval.FromMilliseconds(500)));
}
