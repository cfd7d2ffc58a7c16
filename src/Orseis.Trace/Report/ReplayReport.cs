using Orseis.Diagnostics;
using Orseis.Diagnostics.Replay;

namespace Orseis.Trace.Report;

/// <summary>
/// What the library's own detectors find on a pool's recorded facts (<see cref="FactReplay"/>), beside what the process
/// reported: which detectors were replayed, which the process ran that cannot be (they watch the live runtime or the
/// holders as they hold: see the process's findings for those), the findings with their figures, and the pool-size advice
/// a report at the end of the recording gives.
/// </summary>
internal sealed record ReplayReport(
    long Facts,
    IReadOnlyList<string> Replayed,
    IReadOnlyList<string> NotReplayed,
    IReadOnlyList<string> Found,
    IReadOnlyList<FindingReport> Findings,
    string? PoolSizeAdvice,
    double? UsualOpenMs,
    long QueuedOpens)
{
    /// <summary>One pool's replays (a process may have had several pools of one name), merged.</summary>
    public static ReplayReport Of(IReadOnlyList<ReplayedPool> pools)
    {
        FindingKind ran = pools.Aggregate(FindingKind.None, (k, p) => k | p.Detectors);
        FindingKind replayed = pools.Aggregate(FindingKind.None, (k, p) => k | p.Replayed);
        var findings = pools.SelectMany(p => p.Findings).OrderBy(f => f.Timestamp)
            .Select(f => new FindingReport(f.Timestamp.UtcDateTime, f.Kind.ToString(), f.Message, TraceFacts.Figures(f.FormatFigures())))
            .ToList();
        ReportFigures? last = pools.Count == 0 ? null : pools[^1].Figures;
        return new ReplayReport(
            pools.Sum(p => p.Facts), Names(replayed), Names(ran & ~replayed),
            [.. findings.Select(f => f.Kind).Distinct().Order(StringComparer.Ordinal)], findings,
            last?.PoolSizeAdvice, last?.UsualOpenTime is { } usual ? Math.Round(usual.TotalMilliseconds, 3) : null,
            pools.Sum(p => p.Figures.QueuedOpens));
    }

    /// <summary>The single detectors of <paramref name="kinds"/>, by name.</summary>
    private static List<string> Names(FindingKind kinds) =>
        [.. Enum.GetValues<FindingKind>().Where(k => k is not FindingKind.None and not FindingKind.All && (kinds & k) != 0)
            .Select(k => k.ToString()).Order(StringComparer.Ordinal)];
}
