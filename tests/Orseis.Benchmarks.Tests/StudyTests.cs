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
        StudyPoint[] scoped = [.. results.Points.Where(p => p.Variant == nameof(RatioStudy.AdaptiveScope))];
        Assert.Equal(["Orseis 2", "Orseis 4"], scoped.Select(p => $"{p.Library} {p.N}").Order(StringComparer.Ordinal));
        string summaryText = StudySummary.Console(results, []);
        Assert.Contains("Orseis: median ratio over N", summaryText, StringComparison.Ordinal);
        Assert.Contains("adaptive scope median", summaryText, StringComparison.Ordinal);
        Assert.Contains("scope/session", summaryText, StringComparison.Ordinal);
        Assert.Equal(2, results.Points.Count(p => p.Variant == nameof(RatioStudy.SessionPerUnit)));
        // The scope and the session are also timed against each other, Orseis only, and that pair is the quotient.
        StudyPoint[] paired = [.. results.Points.Where(p => p.Variant == nameof(RatioStudy.ScopeOverSession))];
        Assert.Equal(["Orseis 2", "Orseis 4"], paired.Select(p => $"{p.Library} {p.N}").Order(StringComparer.Ordinal));
        Assert.All(paired, p => Assert.Equal(p.Ratio, StudySummary.ScopeOverSession(results, p.N)!.Value, 9));
        Assert.Contains("| N | scope/session | 95 % CI |", StudySummary.Markdown([results], "study"), StringComparison.Ordinal);
        Assert.Contains("| Orseis in a ConnectionScope |", StudySummary.Markdown([results], "study"), StringComparison.Ordinal);
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
        Assert.Equal(["Orseis OpenPerCall", "Orseis AdaptiveScope", "Orseis SessionPerUnit", "Orseis ScopeOverSession", "ADO.NET OpenPerCall"], round1);
        Assert.Equal(["ADO.NET OpenPerCall", "Orseis OpenPerCall", "Orseis AdaptiveScope", "Orseis SessionPerUnit", "Orseis ScopeOverSession"], round2);
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
    public void The_study_command_measures_each_round_in_its_own_process_and_merges_their_paired_timings()
    {
        // The real job (3 calls per mode, at least 8192 queries per call) at N = 2 and 4, two rounds: two processes of
        // the benchmark program, each warming up as a run does, about 15 s each.
        Environment.SetEnvironmentVariable(BenchProviders.EnvironmentVariable, "sqlite");
        Environment.SetEnvironmentVariable(StudySizes.MaxNVariable, null);
        Environment.SetEnvironmentVariable(StudySizes.RoundsVariable, null);
        string artifacts = Path.Combine(Path.GetTempPath(), "orseis-bench-study-processes");
        if (Directory.Exists(artifacts))
            Directory.Delete(artifacts, recursive: true);

        int exitCode = BenchmarkCommand.Run(
            ["--filter", "*RatioStudy*", "--artifacts", artifacts], "sqlite", rounds: 2, maxN: 4, clock: null, verbose: false);

        Assert.Equal(0, exitCode);
        string results = Path.Combine(artifacts, "results");
        StudyResults merged = StudyResults.Read(Path.Combine(results, "study-sqlite.json"));
        StudyResults[] rounds = [.. Enumerable.Range(1, 2).Select(r => StudyResults.Read(Path.Combine(RoundResults(results, r), "study-sqlite.json")))];
        Assert.Equal(2, merged.Rounds);
        Assert.Equal(
            ["ADO.NET 2", "ADO.NET 4", "Orseis 2", "Orseis 4"],
            merged.Points.Where(p => p.Variant == nameof(RatioStudy.OpenPerCall)).Select(p => $"{p.Library} {p.N}").Order(StringComparer.Ordinal));

        // Each round was measured by a process of its own, neither of them this one, and each point records them in order.
        int[] processes = [.. rounds.Select(r => Assert.Single(r.Points.SelectMany(p => p.Processes!).Distinct()))];
        Assert.Equal(2, processes.Distinct().Count());
        Assert.DoesNotContain(Environment.ProcessId, processes);
        Assert.All(merged.Points, p => Assert.Equal(processes, p.Processes));

        foreach (StudyPoint point in merged.Points)
        {
            // The merged point holds every round's pair, and its statistics are those of the union of the rounds' timings.
            StudyPoint[] parts = [.. rounds.Select(r => Assert.Single(r.Points, p => (p.Library, p.Variant, p.N) == (point.Library, point.Variant, point.N)))];
            var union = new StudyPoint(point.Library, point.Variant, point.N, [.. parts.SelectMany(p => p.ReuseNs)], [.. parts.SelectMany(p => p.VariantNs)]);
            Assert.Equal(union.Ratios, point.Ratios);
            Assert.Equal(union.Ratio, point.Ratio);
            Assert.Equal(union.ReuseUsPerQuery, point.ReuseUsPerQuery);
            Assert.Equal(union.VariantUsPerQuery, point.VariantUsPerQuery);
            // Each round's ratio is the one its process's BenchmarkDotNet report shows for the case (to its 2 decimals).
            for (int r = 0; r < 2; r++)
                Assert.Equal(ReportedRatio(results, r + 1, point), point.Ratios[r], 0.0051);
        }

        Assert.True(File.Exists(Path.Combine(results, "study-sqlite.md")));
        Assert.True(File.Exists(Path.Combine(results, "ratio-sqlite.png")));
    }

    [Fact]
    public void Merging_rounds_gives_the_statistics_of_all_their_pairs_together()
    {
        // Seven rounds from seven processes, the paired ratios 1..7 in a shuffled order: median 4; with 7 rounds the 95 %
        // interval runs from the smallest to the largest ratio (P(X = 0) = 1/128 <= 2.5 % < P(X <= 1) = 8/128).
        double[] ratios = [5, 2, 7, 1, 4, 6, 3];
        StudyResults[] rounds = [.. ratios.Select((ratio, i) => Round(100 + i, new StudyPoint("Orseis", "OpenPerCall", 8, [800], [800 * ratio], [100 + i])))];

        StudyResults merged = StudyStatistics.Merge(rounds, DateTime.UtcNow, 60);

        StudyPoint point = Assert.Single(merged.Points);
        Assert.Equal(7, merged.Rounds);
        Assert.Equal(ratios, point.Ratios);
        Assert.Equal(4, point.Ratio);
        Assert.Equal((1.0, 7.0), point.Interval);
        Assert.Equal(Enumerable.Range(100, 7), point.Processes);
        Assert.Equal(0.1, point.ReuseUsPerQuery, 12);
        Assert.Throws<ArgumentException>(() => StudyStatistics.Merge([rounds[0], rounds[1] with { Provider = "mysql" }], DateTime.UtcNow, 1));
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

    private static StudyResults Round(int process, StudyPoint point) =>
        new("sqlite", "Microsoft.Data.Sqlite", 1, "thread CPU time", DateTime.UtcNow.AddMinutes(process), 1, [point]);

    /// <summary>The BenchmarkDotNet results folder of a round's process.</summary>
    private static string RoundResults(string results, int round) =>
        Path.Combine(results, StudyProcesses.RoundsFolder, $"round-{round:D2}", "results");

    /// <summary>The Variant/Reuse column of a case in a round's BenchmarkDotNet CSV report.</summary>
    private static double ReportedRatio(string results, int round, StudyPoint point)
    {
        string[] lines = File.ReadAllLines(Path.Combine(RoundResults(results, round), "Orseis.Benchmarks.Study.RatioStudy-report.csv"));
        string[] header = lines[0].Split(',');
        int Column(string name) => Array.IndexOf(header, name);
        string n = point.N.ToString(System.Globalization.CultureInfo.InvariantCulture);
        string[] row = Assert.Single(
            lines.Skip(1).Select(l => l.Split(',')),
            c => c[Column("Method")] == point.Variant && c[Column("Library")] == point.Library && c[Column("N")] == n);
        Assert.Equal(round.ToString(System.Globalization.CultureInfo.InvariantCulture), row[Column("Round")]);
        return double.Parse(row[Column("Variant/Reuse")], System.Globalization.CultureInfo.InvariantCulture);
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
