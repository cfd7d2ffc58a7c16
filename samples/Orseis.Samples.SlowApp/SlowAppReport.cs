using Orseis.Diagnostics;

namespace Orseis.Samples.SlowApp;

/// <summary>The app's <c>/report</c>: Orseis' pool report in a few numbers, its findings, and the thread pool now.</summary>
internal sealed record SlowAppReport(
    string Provider, string Calls, int? MinThreads, double UptimeSeconds, long Opens, int PeakInUse, int PeakDemand, long QueuedOpens,
    long? PhysicalConnects, int ThreadPoolThreads, string? PoolSizeAdvice, IReadOnlyDictionary<string, long> Errors, IReadOnlyDictionary<string, long> FindingCounts,
    IReadOnlyList<SlowAppFinding> Findings)
{
    public static SlowAppReport From(PoolReport report, SlowAppSettings settings, DateTimeOffset started, SlowAppErrors errors) => new(
        settings.Provider, settings.Sync ? "sync" : "async", settings.MinThreads, (DateTimeOffset.UtcNow - started).TotalSeconds,
        report.Opens, report.PeakInUse, report.PeakDemand, report.QueuedOpens, report.ProviderPhysicalConnects, ThreadPool.ThreadCount, report.PoolSizeAdvice, errors.Counts,
        report.FindingCounts.Where(f => f.Value > 0).ToDictionary(f => f.Key.ToString(), f => f.Value),
        [.. report.Findings.Select(f => new SlowAppFinding(f.Kind.ToString(), f.Message, f.Timestamp))]);
}

/// <summary>One finding as the report shows it.</summary>
internal sealed record SlowAppFinding(string Kind, string Message, DateTimeOffset Timestamp);
