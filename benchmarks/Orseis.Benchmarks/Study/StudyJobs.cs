using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Jobs;
using Perfolizer.Horology;

namespace Orseis.Benchmarks.Study;

/// <summary>Small N: a throughput job kept short (2 cores; the whole SQLite study must stay under 15 minutes).</summary>
public sealed class SmallStudyConfig : ManualConfig
{
    /// <summary>3 warmup and 8 measured iterations of about 250 ms each.</summary>
    public SmallStudyConfig()
    {
        AddJob(Job.Default.WithId("Throughput").WithWarmupCount(3).WithIterationCount(8).WithIterationTime(TimeInterval.FromMilliseconds(250)));
        AddColumn(new PerQueryColumn(), new OpenOverheadColumn());
    }
}

/// <summary>Large N: one call is already long, so a monitoring job (1 warmup, 3 iterations, one call each).</summary>
public sealed class LargeStudyConfig : ManualConfig
{
    /// <summary>Monitoring strategy, 1 warmup, 3 iterations.</summary>
    public LargeStudyConfig()
    {
        AddJob(Job.Default.WithId("Monitoring").WithStrategy(RunStrategy.Monitoring).WithWarmupCount(1).WithIterationCount(3));
        AddColumn(new PerQueryColumn(), new OpenOverheadColumn());
    }
}
