using System.Collections.Immutable;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Filters;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Order;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Study;

/// <summary>
/// How the study is measured, the same way for every N.
/// <list type="bullet">
/// <item>One job for every N (two on a server, differing only in how many calls a case makes):
/// <see cref="StudySizes.Iterations"/> timed calls per mode and case, the fastest of which counts
/// (BenchmarkDotNet's monitoring strategy: no pilot, no overhead subtraction, no warm-up iteration), and each call runs
/// its N queries often enough to make at least <see cref="StudySizes.MinQueries"/> queries
/// (<see cref="StudySizes.Batches"/>), so small N are not timed at the clock's resolution.</item>
/// <item>The clock (<see cref="UsesThreadCpuClock"/>): on SQLite the benchmark thread's CPU time, on a server wall
/// time.</item>
/// <item>In the process that runs the cases (BenchmarkDotNet's in-process toolchain), so the code every case runs is
/// JIT-optimised by the same warm-up (<see cref="StudyWarmup"/>) instead of each case's process starting again in
/// Tier-0 code.</item>
/// <item>In rounds (<see cref="StudySizes.Rounds"/>), each in a fresh process of its own (<see cref="StudyProcesses"/>),
/// so each round also samples how fast that process's compiled code happens to be: each round measures every N once,
/// and for each N and library the two modes run back to back, alternating which goes first
/// (<see cref="StudyOrderer"/>). Each round gives one paired
/// ratio per N, measured moments apart, so load from other processes that comes and goes mostly hits both halves of a
/// pair alike; the study's ratio is the median of those paired ratios and its 95 % confidence interval comes from their
/// order statistics (<see cref="Analysis.StudyPoint.Interval"/>), so a disturbed round moves neither much.</item>
/// </list>
/// </summary>
public sealed class StudyConfig : ManualConfig
{
    /// <summary>The environment variable that chooses the clock: <c>cpu</c> or <c>wall</c>.</summary>
    public const string ClockVariable = "ORSEIS_STUDY_CLOCK";

    /// <summary>
    /// Whether the study times the benchmark thread's CPU time (<see cref="ThreadCpuClock"/>) instead of wall time:
    /// <see cref="ClockVariable"/>, else on SQLite (all its work is on that thread, none of it waiting) where the clock
    /// exists. A server's work happens in another process, and its round trips wait: servers are timed in wall time.
    /// </summary>
    public static bool UsesThreadCpuClock =>
        Environment.GetEnvironmentVariable(ClockVariable) switch
        {
            "cpu" => true,
            "wall" => false,
            _ => BenchProviders.Current == BenchProvider.Sqlite,
        } && ThreadCpuClock.Instance.IsAvailable;

    /// <summary>The job of a server's long calls, made once per mode (<see cref="StudySizes.Iterations"/>).</summary>
    public const string LongJob = "StudyLong";

    /// <summary>Builds the jobs, the columns and the orderer.</summary>
    public StudyConfig()
    {
        int[] counts = [.. StudySizes.All.Select(StudySizes.Iterations).Distinct()];
        foreach (int count in counts)
        {
            Job job = Job.Default.WithId(count == 1 ? LongJob : "Study")
                .WithToolchain(InProcessEmitToolchain.Instance)
                .WithStrategy(RunStrategy.Monitoring)
                .WithWarmupCount(0)
                .WithIterationCount(2 * count);
            AddJob(UsesThreadCpuClock ? job.WithClock(ThreadCpuClock.Instance) : job);
        }

        // Each N runs in the job with its number of calls only (by the job's name: a test's mutator may change the counts).
        AddFilter(new SimpleFilter(c => c.Descriptor.Type != typeof(RatioStudy) ||
            c.Job.ResolvedId.Contains(LongJob, StringComparison.Ordinal) == (StudySizes.Iterations(N(c)) == 1)));
        AddColumn(PairColumn.Reuse, PairColumn.Variant, PairColumn.Ratio);
        // A case times two modes in turn: statistics over all its calls would mix them.
        HideColumns(Column.Mean, Column.Error, Column.StdDev, Column.Median, Column.Min, Column.Max, Column.Allocated, Column.Gen0, Column.Gen1, Column.Gen2);
        Orderer = new StudyOrderer();
    }

    private static int N(BenchmarkCase c) => c.Parameters.Items.First(p => p.Name == nameof(StudyParameters.N)).Value is int n ? n : 0;
}

/// <summary>Runs the study round by round, N by N, the libraries in alternating order.</summary>
public sealed class StudyOrderer : IOrderer
{
    private static readonly DefaultOrderer DefaultOrder = new();

    private static readonly string[] Methods =
        [nameof(RatioStudy.OpenPerCall), nameof(RatioStudy.AdaptiveScope), nameof(RatioStudy.SessionPerUnit), nameof(RatioStudy.ScopeOverSession),
         nameof(RatioStudy.OpenPerCallUnpooled), nameof(RatioStudy.OpenPerCallNoResetOnClose)];

    /// <inheritdoc/>
    public IEnumerable<BenchmarkCase> GetExecutionOrder(ImmutableArray<BenchmarkCase> benchmarksCase, IEnumerable<BenchmarkLogicalGroupRule>? order = null) =>
        benchmarksCase.OrderBy(c => Param<int>(c, nameof(StudyParameters.Round)))
            .ThenBy(c => Param<int>(c, nameof(StudyParameters.N)))
            .ThenBy(c => LibraryRank(c))
            .ThenBy(c => Array.IndexOf(Methods, c.Descriptor.WorkloadMethod.Name));

    /// <inheritdoc/>
    public IEnumerable<BenchmarkCase> GetSummaryOrder(ImmutableArray<BenchmarkCase> benchmarksCases, Summary summary) =>
        benchmarksCases.OrderBy(c => Param<string>(c, nameof(StudyParameters.Library)), StringComparer.Ordinal)
            .ThenBy(c => Param<int>(c, nameof(StudyParameters.N)))
            .ThenBy(c => Param<int>(c, nameof(StudyParameters.Round)))
            .ThenBy(c => Array.IndexOf(Methods, c.Descriptor.WorkloadMethod.Name));

    /// <summary>
    /// The baseline group of a case: its library, N and round (and job). Computed from the case alone: BenchmarkDotNet's
    /// default scans every case for every key, which with the study's ~1000 cases made the summary take minutes.
    /// </summary>
    public string? GetLogicalGroupKey(ImmutableArray<BenchmarkCase> allBenchmarksCases, BenchmarkCase benchmarkCase) =>
        benchmarkCase.Descriptor.Type == typeof(RatioStudy)
            ? $"{benchmarkCase.Job.ResolvedId}-{Param<string>(benchmarkCase, nameof(StudyParameters.Library))}-{Param<int>(benchmarkCase, nameof(StudyParameters.N))}-{Param<int>(benchmarkCase, nameof(StudyParameters.Round))}"
            : DefaultOrder.GetLogicalGroupKey(allBenchmarksCases, benchmarkCase);

    /// <inheritdoc/>
    public bool SeparateLogicalGroups => DefaultOrder.SeparateLogicalGroups;

    /// <inheritdoc/>
    public string? GetHighlightGroupKey(BenchmarkCase benchmarkCase) => DefaultOrder.GetHighlightGroupKey(benchmarkCase);

    /// <inheritdoc/>
    public IEnumerable<IGrouping<string, BenchmarkCase>> GetLogicalGroupOrder(
        IEnumerable<IGrouping<string, BenchmarkCase>> logicalGroups, IEnumerable<BenchmarkLogicalGroupRule>? order = null) =>
        DefaultOrder.GetLogicalGroupOrder(logicalGroups, order);

    /// <summary>Orseis first in odd rounds, raw ADO.NET first in even ones.</summary>
    private static int LibraryRank(BenchmarkCase c) =>
        (Param<string>(c, nameof(StudyParameters.Library)) == StudyParameters.Orseis ? 0 : 1) ^ (Param<int>(c, nameof(StudyParameters.Round)) % 2 == 0 ? 1 : 0);

    private static T? Param<T>(BenchmarkCase c, string name) =>
        c.Parameters.Items.FirstOrDefault(p => p.Name == name)?.Value is T value ? value : default;
}
