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
/// As an observer it keeps what the advice is made from (every timed hold, and the demand each caller met as it entered
/// Open while a detector is on) and writes the advice into every report; findings only when
/// <paramref name="reportsFindings"/> (the PoolSize detector is on).
/// </summary>
internal sealed class PoolSizeAdvisor(FindingLog log, int? maxPoolSize, bool reportsFindings = false) : PoolObserver
{
    private const double Headroom = 1.2;
    private const double HoldQuantile = 0.25;
    private readonly HoldTimes _holds = new();
    private long _demandSum;
    private long _demandSamples;

    public override void OnOpenStarting(in OpenStart start)
    {
        Interlocked.Add(ref _demandSum, start.Demand);
        Interlocked.Increment(ref _demandSamples);
    }

    public override void OnReleased(in Release release) => _holds.Record(release.Holder.Started, release.At, release.Held);

    public override void Describe(ReportFigures figures)
    {
        long samples = Interlocked.Read(ref _demandSamples);
        double meanDemand = samples == 0 ? 0 : (double)Interlocked.Read(ref _demandSum) / samples;
        Advice? advice = Advise(_holds, meanDemand, figures.QueuedOpens, figures.Opens, reportsFindings, figures.LastStarved);
        figures.MedianHoldTime = _holds.Percentile(0.5);
        figures.MeanInUse = advice?.Busy;
        figures.RecommendedMaxPoolSize = advice?.Recommended;
        figures.PoolSizeAdvice = advice is null ? null : Line(advice);
    }

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

    /// <summary>The advice as the report's line: the measured figures, then what to do with Max Pool Size, if anything.</summary>
    private string Line(Advice a)
    {
        var c = CultureInfo.InvariantCulture;
        string measured = string.Create(
            c, $"{a.PerSecond:0.##} releases/s x {a.Hold.TotalMilliseconds:0.###} ms uncontended hold = {a.Busy:0.##} busy");
        if (a.Starved)
        {
            return measured + "; no advice: the thread pool starved while this load ran, so its throughput measured the threads, " +
                   "not what the load needs (see the ThreadPoolStarvation finding)";
        }

        string law = string.Create(c, $"{measured} -> {a.Recommended}");
        if (a.Raise)
            return law + string.Create(c, $"; {a.QueuedOpens} open(s) queued: raise Max Pool Size from {maxPoolSize} to {a.Recommended}");
        if (a.Lower)
        {
            return law + string.Create(c, $"; Max Pool Size {maxPoolSize} is more than this load uses: {a.Recommended} would do ") +
                   "(a smaller cap protects the server when load spikes)";
        }

        return law;
    }
}
