using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Pool-size advice by Little's law, from figures measured on this load: the throughput (releases per second between
/// the first acquire and the last release) times the uncontended hold time (the 25th percentile of hold times, so
/// holds stretched by a saturated server do not inflate it) is how many connections the load keeps busy; the advice is
/// that with 20 % headroom, plus one. When callers really queued, the demand they showed (held plus inside Open, as each
/// arrived) is a floor for it. The report and the finding give the same number; a finding ("raise") is made only when
/// callers queued and the advice is above Max Pool Size; "lower" is only ever a line of the report. No advice at all
/// when the thread pool starved while the load ran: the throughput then measured the threads, not the load (the
/// cold-start study's bursts read "10 would do" for 130 callers holding connections 5 s each).
/// </summary>
internal sealed class PoolSizeAdvisor(FindingLog log, int? maxPoolSize)
{
    private const double Headroom = 1.2;
    private const double HoldQuantile = 0.25;

    /// <summary>What was measured and advised; <see cref="Recommended"/> is null when <see cref="Starved"/>.</summary>
    public sealed record Advice(
        int? Recommended, double Busy, double PerSecond, TimeSpan Hold, double MeanDemand, long QueuedOpens, bool Raise, bool Lower, bool Starved);

    /// <summary>
    /// The advice for what was measured, or null before any connection was released. <paramref name="lastStarved"/>: when
    /// the thread pool was last seen starving (a timestamp of the log's clock, 0 if never or not watched).
    /// </summary>
    public Advice? Advise(HoldTimes holds, double meanDemand, long queuedOpens, long opens, bool report, long lastStarved = 0)
    {
        (long first, long last) = holds.Span;
        if (holds.Percentile(HoldQuantile) is not { } hold || last <= first)
            return null;
        double seconds = log.Time.GetElapsedTime(first, last).TotalSeconds;
        double perSecond = holds.Count / seconds;
        double busy = perSecond * hold.TotalSeconds;
        if (lastStarved != 0 && lastStarved >= first)
            return new Advice(null, busy, perSecond, hold, meanDemand, queuedOpens, Raise: false, Lower: false, Starved: true);
        int recommended = (int)Math.Ceiling(busy * Headroom) + 1;
        bool queued = queuedOpens >= Math.Max(5, opens / 100);
        if (queued)
            recommended = Math.Max(recommended, (int)Math.Ceiling(meanDemand));
        bool raise = queued && maxPoolSize is { } max && recommended > max;
        bool lower = !queued && maxPoolSize is { } m && m >= 2 * recommended;
        var advice = new Advice(recommended, busy, perSecond, hold, meanDemand, queuedOpens, raise, lower, Starved: false);
        if (raise && report)
        {
            CultureInfo c = CultureInfo.InvariantCulture;
            log.Report(FindingKind.PoolSize,
                string.Create(c, $"Max Pool Size {maxPoolSize} of pool '{log.PoolName}' is too small for this load: {queuedOpens} open(s) queued for a connection ") +
                string.Create(c, $"(callers wanted {meanDemand:0.#} connections on average as they arrived). Little's law: {perSecond:0.##} releases/s x {hold.TotalMilliseconds:0.###} ms uncontended hold ") +
                string.Create(c, $"= {busy:0.##} busy; raise Max Pool Size to {recommended} if the server can take it, or hold connections for less time."),
                new Dictionary<string, double>
                {
                    ["maxPoolSize"] = maxPoolSize ?? -1,
                    ["recommended"] = recommended,
                    ["busy"] = busy,
                    ["perSecond"] = perSecond,
                    ["holdMs"] = hold.TotalMilliseconds,
                    ["meanDemand"] = meanDemand,
                    ["queuedOpens"] = queuedOpens,
                },
                null, rateLimited: true);
        }

        return advice;
    }
}
