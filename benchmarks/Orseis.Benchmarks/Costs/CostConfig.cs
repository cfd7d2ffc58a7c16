using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using Perfolizer.Horology;

namespace Orseis.Benchmarks.Costs;

/// <summary>A short throughput job for the cost breakdowns: 3 warmup and 8 measured iterations of about 250 ms.</summary>
public sealed class CostConfig : ManualConfig
{
    /// <summary>Adds the job.</summary>
    public CostConfig() =>
        AddJob(Job.Default.WithId("Throughput").WithWarmupCount(3).WithIterationCount(8).WithIterationTime(TimeInterval.FromMilliseconds(250)));
}
