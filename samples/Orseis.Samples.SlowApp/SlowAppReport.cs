using Orseis.Diagnostics;

namespace Orseis.Samples.SlowApp;

/// <summary>
/// The app's <c>/report</c>: Orseis' pool report in a few numbers, its findings, the thread pool now, what /work did, and
/// MySqlConnector's own count of the connections out of its pool (<see cref="ProviderUsage"/>: parked ones too).
/// </summary>
internal sealed record SlowAppReport(
    string Provider, string Calls, int? MinThreads, double UptimeSeconds, long Opens, int PeakInUse, int PeakDemand, long QueuedOpens,
    long? PhysicalConnects, int ThreadPoolThreads, string? PoolSizeAdvice, IReadOnlyDictionary<string, long> Errors,
    IReadOnlyDictionary<string, long> FindingCounts, IReadOnlyList<SlowAppFinding> Findings)
{
    /// <summary>SLOWAPP_UNIT.</summary>
    public required string Unit { get; init; }

    /// <summary>Commands Orseis ran.</summary>
    public long Commands { get; init; }

    /// <summary>Connections held by calls and sessions now (a parked connection is not held).</summary>
    public int InUse { get; init; }

    /// <summary>Calls that took a scope's parked connection instead of opening one.</summary>
    public long ScopeReuses { get; init; }

    /// <summary>Connections parked in scopes now.</summary>
    public int ParkedConnections { get; init; }

    /// <summary>The time connections sat parked in scopes, all together, in milliseconds.</summary>
    public double ParkedMilliseconds { get; init; }

    /// <summary>Connections MySqlConnector counts as used now (leased to a caller, its reset done; parked in a scope too).</summary>
    public long ProviderUsed { get; init; }

    /// <summary>Connections out of MySqlConnector's idle list now: used, or being reset for a caller.</summary>
    public long ProviderTaken { get; init; }

    /// <summary>The most connections used at once since the start or the last <c>?resetPeak=true</c>.</summary>
    public long ProviderPeakUsed { get; init; }

    /// <summary>The most connections taken at once since the start or the last <c>?resetPeak=true</c>.</summary>
    public long ProviderPeakTaken { get; init; }

    /// <summary>
    /// The used and taken counts integrated over time since the start (connection-seconds): the mean between two reports is
    /// the difference over their <see cref="UptimeSeconds"/>.
    /// </summary>
    public double ProviderUsedSeconds { get; init; }

    public double ProviderTakenSeconds { get; init; }

    /// <summary>Orseis' advice for Max Pool Size from what it measured (<see cref="PoolReport.RecommendedMaxPoolSize"/>); null with none.</summary>
    public int? RecommendedMaxPoolSize { get; init; }

    /// <summary>CPU time this process used since it started (user and system), in seconds.</summary>
    public double CpuSeconds { get; init; }

    /// <summary>/work requests that came in, answered 200, and calls whose value came back right.</summary>
    public long WorkRequests { get; init; }

    public long WorkAnswered { get; init; }

    public long WorkCalls { get; init; }

    public static SlowAppReport From(
        PoolReport report, SlowAppSettings settings, DateTimeOffset started, SlowAppErrors errors, ProviderUsage.Reading pool,
        WorkEndpoint work) => new(
        settings.Provider, settings.Sync ? "sync" : "async", settings.MinThreads, (DateTimeOffset.UtcNow - started).TotalSeconds,
        report.Opens, report.PeakInUse, report.PeakDemand, report.QueuedOpens, report.ProviderPhysicalConnects, ThreadPool.ThreadCount,
        report.PoolSizeAdvice, errors.Counts,
        report.FindingCounts.Where(f => f.Value > 0).ToDictionary(f => f.Key.ToString(), f => f.Value),
        [.. report.Findings.Select(f => new SlowAppFinding(f.Kind.ToString(), f.Message, f.Timestamp))])
    {
        Unit = settings.Unit,
        Commands = report.Commands,
        InUse = report.InUse,
        ScopeReuses = report.ScopeReuses,
        ParkedConnections = report.ParkedConnections,
        ParkedMilliseconds = report.ParkedTime?.TotalMilliseconds ?? 0, // timed only with detectors on
        ProviderUsed = pool.Used,
        ProviderTaken = pool.Taken,
        ProviderPeakUsed = pool.PeakUsed,
        ProviderPeakTaken = pool.PeakTaken,
        ProviderUsedSeconds = pool.UsedSeconds,
        ProviderTakenSeconds = pool.TakenSeconds,
        RecommendedMaxPoolSize = report.RecommendedMaxPoolSize,
        CpuSeconds = Environment.CpuUsage.TotalTime.TotalSeconds,
        WorkRequests = work.Requests,
        WorkAnswered = work.Answered,
        WorkCalls = work.Calls,
    };
}

/// <summary>One finding as the report shows it.</summary>
internal sealed record SlowAppFinding(string Kind, string Message, DateTimeOffset Timestamp);
