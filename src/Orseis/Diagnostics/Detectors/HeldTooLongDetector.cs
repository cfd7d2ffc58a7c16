using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Held too long: a connection out longer than <see cref="DiagnosticsOptions.HeldTooLongThreshold"/>, reported once per
/// connection. Checked when a connection is released, and over every holder at most every quarter threshold (so an
/// acquire costs no scan), and whenever a report is made.
/// </summary>
internal sealed class HeldTooLongDetector(FindingLog log, HolderTable holders) : PoolObserver
{
    private long _nextScan;

    private TimeSpan Threshold => log.Options.HeldTooLongThreshold;

    // Both steps compare in place first: almost every acquire and release is neither due a scan nor overdue.
    public override HeardFacts Hears => HeardFacts.Acquired | HeardFacts.Released;

    public override void OnAcquired(in Acquire acquire)
    {
        if (acquire.At >= Volatile.Read(ref _nextScan))
            MaybeScan(acquire.At);
    }

    public override void OnReleased(in Release release)
    {
        if (release.Held > Threshold)
            OnReleased(release.Holder, release.Held);
        if (release.At >= Volatile.Read(ref _nextScan))
            MaybeScan(release.At);
    }

    /// <summary>A report names every holder overdue now.</summary>
    public override void Describe(ReportFigures figures) => MaybeScan(force: true);

    public void OnReleased(in HolderTable.Holder holder, TimeSpan held)
    {
        if (held > Threshold && !holder.Reported)
            Report(holder, held, stillHeld: false);
    }

    /// <summary>Scans the holders if the last scan is a quarter threshold old (or <paramref name="force"/>).</summary>
    public void MaybeScan(bool force = false) => MaybeScan(log.Time.GetTimestamp(), force);

    /// <summary>As <see cref="MaybeScan(bool)"/>, at <paramref name="now"/>: a timestamp the caller has just read.</summary>
    public void MaybeScan(long now, bool force = false)
    {
        long next = Volatile.Read(ref _nextScan);
        if (!force && now < next)
            return;
        long interval = (long)(Math.Clamp(Threshold.TotalSeconds / 4, 0.01, 5) * log.Time.TimestampFrequency);
        if (Interlocked.CompareExchange(ref _nextScan, now + interval, next) != next && !force)
            return;
        foreach ((HolderTable.Holder holder, TimeSpan held) in holders.TakeOverdue(Threshold, now))
            Report(holder, held, stillHeld: true);
    }

    private void Report(in HolderTable.Holder holder, TimeSpan held, bool stillHeld)
    {
        CultureInfo c = CultureInfo.InvariantCulture;
        string where = holder.Stack is { } stack
            ? $" Acquired at:{Environment.NewLine}{stack}"
            : " (Where one-shot calls acquire is not recorded, to keep every acquire cheap; sessions and streams record it.)";
        log.Report(FindingKind.HeldTooLong,
            string.Create(c, $"A connection of pool '{log.PoolName}' held by {holder.Owner} {(stillHeld ? "has been out" : "was out")} for {held.TotalSeconds:0.###} s, ") +
            string.Create(c, $"longer than DiagnosticsOptions.HeldTooLongThreshold ({Threshold.TotalSeconds:0.###} s): a leak suspect ") +
            "(an undisposed Session or Stream) or long work done while holding a connection." + where,
            new Dictionary<string, double> { ["heldMs"] = held.TotalMilliseconds, ["thresholdMs"] = Threshold.TotalMilliseconds, ["stillHeld"] = stillHeld ? 1 : 0 },
            holder.Stack, rateLimited: false, ofThisFlow: !stillHeld); // a scan runs on another caller's flow, or a report's
    }
}
