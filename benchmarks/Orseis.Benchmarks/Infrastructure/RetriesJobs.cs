using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;

namespace Orseis.Benchmarks.Infrastructure;

/// <summary>
/// Retries' cost side by side (<c>--retries-side-by-side</c>): each of <c>OrmOverhead</c>'s jobs becomes two jobs that
/// differ only by the environment variable <see cref="RetriesVariable"/>, so every method runs without retries and
/// then with retries configured one right after the other (BenchmarkDotNet runs a method's jobs back to back), each
/// over <see cref="Launches"/> processes. The job without retries is the baseline: Ratio is with / without. The
/// ADO.NET and Dapper rows do not read the variable: their ratio is the noise of the run.
/// </summary>
public static class RetriesJobs
{
    /// <summary>Set by <c>--retries-side-by-side</c> for the class configs.</summary>
    public const string SideBySideVariable = "ORSEIS_RETRIES_SIDE_BY_SIDE";

    /// <summary>Set to <c>true</c> in the benchmark processes of the job with retries configured.</summary>
    public const string RetriesVariable = "ORSEIS_BENCH_RETRIES";

    /// <summary>Processes per job: a process's own code layout moves a row by more than the cost asked about.</summary>
    public const int Launches = 4;

    /// <summary>True when <c>--retries-side-by-side</c> was given.</summary>
    public static bool SideBySide => Environment.GetEnvironmentVariable(SideBySideVariable) == "true";

    /// <summary>True in a benchmark process of the job with retries configured.</summary>
    public static bool InThisProcess => Environment.GetEnvironmentVariable(RetriesVariable) == "true";

    /// <summary>Exports the choice for the class configs; 2 after printing why when it cannot be combined.</summary>
    public static int? Apply(bool sideBySide)
    {
        if (!sideBySide)
            return null;
        if (BaselineJobs.SideBySide)
        {
            Console.Error.WriteLine("--retries-side-by-side and --baseline-feed cannot be combined: run them one at a time.");
            return 2;
        }

        Environment.SetEnvironmentVariable(SideBySideVariable, "true");
        Console.WriteLine($"Orseis benchmarks: retries side by side, {Launches} launches a job (NoRetries = baseline, Retries)");
        return null;
    }

    /// <summary>Adds <paramref name="job"/>'s two twins to <paramref name="config"/>, grouped by method and parameters.</summary>
    public static void Add(ManualConfig config, Job job)
    {
        Job launched = job.WithLaunchCount(Launches);
        config.AddJob(launched.WithId("NoRetries").AsBaseline());
        config.AddJob(launched.WithId("Retries").WithEnvironmentVariable(RetriesVariable, "true"));
        config.WithBuildTimeout(TimeSpan.FromMinutes(15));
        config.AddLogicalGroupRules(BenchmarkLogicalGroupRule.ByMethod, BenchmarkLogicalGroupRule.ByParams);
    }
}
