using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;

namespace Orseis.Benchmarks.Infrastructure;

/// <summary>
/// Side by side against an older Orseis (<c>--baseline-feed FOLDER</c>): each of a class's jobs becomes two jobs that
/// differ only by the MSBuild argument <c>/p:OrseisBaseline=true</c>, which builds the benchmarks against the Orseis
/// package in the folder instead of src/Orseis (BenchmarkDotNet's way to compare package versions). The old one is
/// the baseline job, so Ratio is this tree's time over the old one's, method by method.
/// </summary>
public static class BaselineJobs
{
    /// <summary>The folder holding the packed older Orseis; set by <c>--baseline-feed</c>, read by the class configs.</summary>
    public const string FeedVariable = "ORSEIS_BASELINE_FEED";

    /// <summary>The older package's version (default <see cref="DefaultVersion"/>); set by <c>--baseline-version</c>.</summary>
    public const string VersionVariable = "ORSEIS_BASELINE_VERSION";

    /// <summary>The version CONTRIBUTING's pack command gives the older Orseis.</summary>
    public const string DefaultVersion = "0.0.0-baseline";

    /// <summary>The id of the job built against the older package.</summary>
    public const string BaselineId = "Baseline";

    /// <summary>The id of the job built against src/Orseis.</summary>
    public const string CurrentId = "Current";

    /// <summary>True when a baseline feed was given: the configs add two jobs per job.</summary>
    public static bool SideBySide => Environment.GetEnvironmentVariable(FeedVariable) is { Length: > 0 };

    /// <summary>
    /// Checks <paramref name="feed"/> and exports it (and <paramref name="version"/>) for the class configs. Returns null
    /// when the run can go ahead, else 2 after printing what was wrong.
    /// </summary>
    public static int? Apply(string? feed, string? version)
    {
        if (feed is null)
        {
            if (version is null)
                return null;
            Console.Error.WriteLine("--baseline-version needs --baseline-feed (the folder holding that Orseis package).");
            return 2;
        }

        string folder = Path.GetFullPath(feed);
        string wanted = version ?? DefaultVersion;
        string package = Path.Combine(folder, $"Orseis.{wanted}.nupkg");
        if (!File.Exists(package))
        {
            Console.Error.WriteLine(
                $"--baseline-feed: no {package}. Pack the older commit first: dotnet pack src/Orseis -c Release -o {folder} /p:Version={wanted}");
            return 2;
        }

        Environment.SetEnvironmentVariable(FeedVariable, folder);
        Environment.SetEnvironmentVariable(VersionVariable, wanted);
        Console.WriteLine($"Orseis benchmarks: side by side, baseline job = {package}, current job = src/Orseis");
        return null;
    }

    /// <summary>
    /// Adds <paramref name="job"/> to <paramref name="config"/>, or, side by side, its baseline twin (marked baseline) and
    /// its current twin, grouped by method and parameters so each row's Ratio is current / baseline.
    /// </summary>
    public static void Add(ManualConfig config, Job job)
    {
        if (!SideBySide)
        {
            config.AddJob(job);
            return;
        }

        string feed = Environment.GetEnvironmentVariable(FeedVariable)!;
        string version = Environment.GetEnvironmentVariable(VersionVariable) ?? DefaultVersion;
        config.AddJob(job.WithId(BaselineId).AsBaseline().WithArguments(
        [
            new MsBuildArgument("/p:OrseisBaseline=true"),
            new MsBuildArgument($"/p:OrseisBaselineFeed={feed}"),
            new MsBuildArgument($"/p:OrseisBaselineVersion={version}"),
        ]));
        config.AddJob(job.WithId(CurrentId));
        config.WithBuildTimeout(TimeSpan.FromMinutes(15));
        config.AddLogicalGroupRules(BenchmarkLogicalGroupRule.ByMethod, BenchmarkLogicalGroupRule.ByParams);
    }
}
