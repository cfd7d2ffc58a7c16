using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Orseis.Benchmarks.Infrastructure;
using Orseis.Benchmarks.Study;
using Orseis.Benchmarks.Study.Analysis;

namespace Orseis.Benchmarks.Tests;

/// <summary>How the study is run and read: one job for every N, rounds with the modes back to back, paired ratios.</summary>
[Collection(EnvironmentCollection.Name)]
public sealed class StudyTests
{
    [Fact]
    public void A_short_run_gives_one_paired_ratio_per_round_for_each_library_and_N()
    {
        // Two calls per case (one per mode), every case in this process, tiny N: a few seconds.
        Environment.SetEnvironmentVariable(BenchProviders.EnvironmentVariable, "sqlite");
        Environment.SetEnvironmentVariable(StudySizes.MaxNVariable, "4");
        Environment.SetEnvironmentVariable(StudySizes.RoundsVariable, "2");
        IConfig config = new Config(NullLogger.Instance)
            .AddJob(Job.Dry.WithToolchain(InProcessEmitToolchain.Instance).WithIterationCount(2).AsMutator())
            .WithOptions(ConfigOptions.DisableLogFile)
            .WithArtifactsPath(Path.Combine(Path.GetTempPath(), "orseis-bench-study-test"));
        Summary summary = BenchmarkRunner.Run<RatioStudy>(config);
        StudyResults results = StudyStatistics.FromSummary(summary, DateTime.UtcNow, 1);
        StudyPoint[] main = [.. results.Points.Where(p => p.Variant == nameof(RatioStudy.OpenPerCall))];
        Assert.Equal(["ADO.NET 2", "ADO.NET 4", "Orseis 2", "Orseis 4"], main.Select(p => $"{p.Library} {p.N}").Order(StringComparer.Ordinal));
        Assert.All(main, p => Assert.Equal(2, p.Ratios.Length));
        Assert.Contains(results.Points, p => p.Variant == nameof(RatioStudy.OpenPerCallUnpooled));
        Assert.DoesNotContain(results.Points, p => p.Variant == nameof(RatioStudy.OpenPerCallNoResetOnClose));
        Assert.Contains("Orseis: median ratio over N", StudySummary.Console(results, []), StringComparison.Ordinal);
    }

    [Fact]
    public void Every_N_runs_in_the_same_job_and_each_round_pairs_the_modes_back_to_back_in_alternating_order()
    {
        Environment.SetEnvironmentVariable(BenchProviders.EnvironmentVariable, "sqlite");
        Environment.SetEnvironmentVariable(StudySizes.MaxNVariable, "4096");
        Environment.SetEnvironmentVariable(StudySizes.RoundsVariable, "2");
        BenchmarkRunInfo info = BenchmarkConverter.TypeToBenchmarks(typeof(RatioStudy), new Config());
        BenchmarkCase[] order = [.. new StudyOrderer().GetExecutionOrder([.. info.BenchmarksCases.Where(StudyCases.IsWanted)])];

        Assert.Single(order.Select(c => c.Job.ResolvedId).Distinct());
        string[] round1 = [.. order.Where(c => Round(c) == 1 && N(c) == 4096).Select(Name)];
        string[] round2 = [.. order.Where(c => Round(c) == 2 && N(c) == 4096).Select(Name)];
        Assert.Equal(["Orseis OpenPerCall", "ADO.NET OpenPerCall"], round1);
        Assert.Equal(["ADO.NET OpenPerCall", "Orseis OpenPerCall"], round2);
        // Within a case the calls alternate: reuse first in odd rounds, the variant first in even ones.
        Assert.Equal([false, true, false, true], Enumerable.Range(0, 4).Select(i => StudySizes.IsVariantCall(i, 1)));
        Assert.Equal([true, false, true, false], Enumerable.Range(0, 4).Select(i => StudySizes.IsVariantCall(i, 2)));
        Assert.All(order, c => Assert.Equal(6, c.Job.Run.IterationCount));
        // Round 1 is measured in full before round 2 starts, N ascending within a round.
        Assert.True(order.TakeWhile(c => Round(c) == 1).Count() == order.Count(c => Round(c) == 1));
        Assert.Equal(order.Where(c => Round(c) == 1).Select(N), order.Where(c => Round(c) == 1).Select(N).Order());
        // Small N repeat their N queries up to 8192 queries per timed call; from 8192 on a call is N queries.
        Assert.Equal(4096, StudySizes.Batches(StudySizes.Reuse, 2));
        Assert.Equal(1, StudySizes.Batches(StudySizes.Reuse, 8192));
        Assert.Equal(1, StudySizes.Batches(StudySizes.Reuse, 131072));
    }

    [Fact]
    public void Sql_server_without_a_server_is_skipped_with_exit_code_0()
    {
        if (!string.IsNullOrEmpty(Environment.GetEnvironmentVariable(ProviderFactories.SqlServerVariable)))
            return;
        string? before = Environment.GetEnvironmentVariable(BenchProviders.EnvironmentVariable);
        try
        {
            Assert.Equal(0, ProviderOption.Apply("sqlserver"));
            Assert.Equal(2, ProviderOption.Apply("oracle"));
            // Its factory and connection strings still build without a server.
            Assert.Equal("Microsoft.Data.SqlClient", ProviderFactories.Describe(ProviderFactories.Factory(BenchProvider.SqlServer)).Split(' ')[0]);
        }
        finally
        {
            Environment.SetEnvironmentVariable(BenchProviders.EnvironmentVariable, before);
        }
    }

    private static int Round(BenchmarkCase c) => (int)c.Parameters[nameof(StudyParameters.Round)];

    private static int N(BenchmarkCase c) => (int)c.Parameters[nameof(StudyParameters.N)];

    private static string Name(BenchmarkCase c) => $"{c.Parameters[nameof(StudyParameters.Library)]} {c.Descriptor.WorkloadMethod.Name}";
}

/// <summary>The tests that set the benchmark program's environment variables (provider, N cap, rounds) run one at a time.</summary>
[CollectionDefinition(Name)]
public sealed class EnvironmentCollection
{
    public const string Name = "Benchmark environment variables";
}
