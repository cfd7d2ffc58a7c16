using System.Globalization;
using System.Text;

namespace Orseis.Diagnostics;

/// <summary>
/// A snapshot of one pool as Orseis sees it: counts always, timings and findings when detectors are on
/// (<see cref="DiagnosticsOptions.Detectors"/>) or a listener asked for timings. <see cref="ToString"/> reads as a report.
/// </summary>
public sealed class PoolReport
{
    internal PoolReport()
    {
    }

    /// <summary>The pool's name (<c>db.client.connection.pool.name</c>).</summary>
    public required string PoolName { get; init; }

    /// <summary>The provider's <c>db.system.name</c>.</summary>
    public required string SystemName { get; init; }

    /// <summary>The database's execution mode.</summary>
    public ExecutionMode Mode { get; init; }

    /// <summary>Time since the database was created.</summary>
    public TimeSpan Elapsed { get; init; }

    /// <summary>The detectors that were on.</summary>
    public FindingKind Detectors { get; init; }

    /// <summary>Connections held through this database now (calls, sessions, the shared connection).</summary>
    public int InUse { get; init; }

    /// <summary>Callers inside Open now.</summary>
    public int Pending { get; init; }

    /// <summary>The most connections taken from the pool at once: held by calls, or parked in a <see cref="ConnectionScope"/>.</summary>
    public int PeakInUse { get; init; }

    /// <summary>The most callers inside Open at once.</summary>
    public int PeakPending { get; init; }

    /// <summary>
    /// The most connections wanted at one instant: connections held plus callers inside Open, both read as a caller
    /// entered Open (never two peaks from different moments added together).
    /// </summary>
    public int PeakDemand { get; init; }

    /// <summary>Opens that queued for a connection (more callers wanted one than Max Pool Size) and waited (detectors on).</summary>
    public long QueuedOpens { get; init; }

    /// <summary>Max Pool Size from the connection string or the provider's default; null when unknown or unbounded.</summary>
    public int? MaxPoolSize { get; init; }

    /// <summary>Connection opens (pool checkouts).</summary>
    public long Opens { get; init; }

    /// <summary>Commands executed.</summary>
    public long Commands { get; init; }

    /// <summary>Opens per command: 1 is open-per-call, near 0 is reuse.</summary>
    public double OpensPerCommand => Commands == 0 ? 0 : (double)Opens / Commands;

    /// <summary>Opens that timed out waiting for the pool.</summary>
    public long Timeouts { get; init; }

    /// <summary>ReuseConnection calls that waited for the shared connection.</summary>
    public long ReuseWaits { get; init; }

    /// <summary>
    /// Calls in a <see cref="ConnectionScope"/> that took its parked connection instead of opening one, counted as each scope ends or
    /// its parked connection goes back to the pool (<see cref="ConnectionScope.ReusedCalls"/> counts a scope's as they happen).
    /// </summary>
    public long ScopeReuses { get; init; }

    /// <summary>Connections parked in scopes now: out of the provider's pool, held by no call (<see cref="ConnectionScope"/>).</summary>
    public int ParkedConnections { get; init; }

    /// <summary>
    /// The time connections sat parked in scopes between calls, all together; timed, like the other durations here, while
    /// detectors are on or a listener asks for timings (null when nothing was timed).
    /// </summary>
    public TimeSpan? ParkedTime { get; init; }

    /// <summary>Open sessions.</summary>
    public int ActiveSessions { get; init; }

    /// <summary>Opens per second since the database was created.</summary>
    public double? OpensPerSecond { get; init; }

    /// <summary>The pool's usual open time: a moving average of warm opens (pool hits that neither queued nor connected).</summary>
    public TimeSpan? UsualOpenTime { get; init; }

    /// <summary>The median time a connection was held (from a histogram of every hold).</summary>
    public TimeSpan? MedianHoldTime { get; init; }

    /// <summary>
    /// Connections this load keeps busy, by Little's law: releases per second (between the first acquire and the last
    /// release) times the uncontended hold time (the 25th percentile of holds).
    /// </summary>
    public double? MeanInUse { get; init; }

    /// <summary>
    /// A Max Pool Size for the measured load: <see cref="MeanInUse"/> with 20 % headroom, plus one; when callers queued,
    /// at least the demand they showed. The <see cref="FindingKind.PoolSize"/> finding quotes the same number. Null before a
    /// connection was released, and when the thread pool starved while the load ran (its throughput then measured the
    /// threads, not the load; <see cref="PoolSizeAdvice"/> says so).
    /// </summary>
    public int? RecommendedMaxPoolSize { get; init; }

    /// <summary>The pool-size advice as one line: the law's figures, and "raise" (callers queued) or "lower" (far more than
    /// needed).</summary>
    public string? PoolSizeAdvice { get; init; }

    /// <summary>How long the longest current holder has held its connection.</summary>
    public TimeSpan? LongestHeld { get; init; }

    /// <summary>Where the longest current holder acquired its connection (with <see cref="FindingKind.HeldTooLong"/> on).</summary>
    public string? LongestHolderLocation { get; init; }

    /// <summary>Idle connections in the provider's pool, where the provider publishes it.</summary>
    public long? ProviderIdle { get; init; }

    /// <summary>Used connections in the provider's pool (by anyone sharing it), where the provider publishes it.</summary>
    public long? ProviderUsed { get; init; }

    /// <summary>Physical connections the provider created (the rest of the opens were pool hits), where it publishes it.</summary>
    public long? ProviderPhysicalConnects { get; init; }

    /// <summary>What Orseis can and cannot see of this provider's pool.</summary>
    public required string ProviderVisibility { get; init; }

    /// <summary>How many findings of each kind were made (including ones no longer kept).</summary>
    public required IReadOnlyDictionary<FindingKind, long> FindingCounts { get; init; }

    /// <summary>The most recent findings, oldest first.</summary>
    public required IReadOnlyList<PoolFinding> Findings { get; init; }

    /// <summary>The report as readable text.</summary>
    /// <returns>Several lines of text.</returns>
    public override string ToString()
    {
        var s = new StringBuilder();
        CultureInfo c = CultureInfo.InvariantCulture;
        s.AppendLine(c, $"Pool '{PoolName}' ({SystemName}, {Mode}) over {Elapsed.TotalSeconds:0.#} s");
        s.AppendLine(c, $"  in use {InUse} (peak {PeakInUse}), waiting in Open {Pending} (peak {PeakPending}), peak demand {PeakDemand}, queued opens {QueuedOpens}, Max Pool Size {MaxPoolSize?.ToString(c) ?? "unknown"}");
        s.AppendLine(c, $"  opens {Opens}, commands {Commands}, opens/command {OpensPerCommand:0.###}, opens/s {OpensPerSecond:0.##}");
        s.AppendLine(c, $"  timeouts {Timeouts}, reuse waits {ReuseWaits}, active sessions {ActiveSessions}");
        if (ScopeReuses > 0 || ParkedConnections > 0)
        {
            s.AppendLine(c, $"  scopes: calls on a parked connection {ScopeReuses}, parked now {ParkedConnections}, " +
                            $"parked time {Ms(ParkedTime)} in all");
        }
        s.AppendLine(c, $"  usual (warm) open time {Ms(UsualOpenTime)}; median hold time {Ms(MedianHoldTime)}");
        if (PoolSizeAdvice is { } advice)
            s.AppendLine(c, $"  pool size (Little's law): {advice}");
        if (LongestHeld is { } held)
            s.AppendLine(c, $"  longest current holder: {held.TotalSeconds:0.###} s{(LongestHolderLocation is null ? "" : Environment.NewLine + LongestHolderLocation)}");
        if (ProviderIdle is not null || ProviderUsed is not null || ProviderPhysicalConnects is not null)
            s.AppendLine(c, $"  provider pool: idle {ProviderIdle?.ToString(c) ?? "?"}, used {ProviderUsed?.ToString(c) ?? "?"}, physical connects {ProviderPhysicalConnects?.ToString(c) ?? "?"}");
        s.AppendLine(c, $"  provider: {ProviderVisibility}");
        s.AppendLine(c, $"  detectors: {Detectors}; findings: {string.Join(", ", FindingCounts.Where(f => f.Value > 0).Select(f => $"{f.Key} {f.Value}").DefaultIfEmpty("none"))}");
        foreach (PoolFinding finding in Findings)
            s.AppendLine(c, $"  - {finding}");
        return s.ToString().TrimEnd();

        string Ms(TimeSpan? t) => t is { } v ? v.TotalMilliseconds.ToString("0.###", c) + " ms" : "not timed";
    }
}
