using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Churn: one flow opening connection after connection back to back (each open within
/// <see cref="DiagnosticsOptions.ChurnGap"/> of its previous release, none held meanwhile). A worker that opens once per
/// unit of work with time between units is the right pattern and is never reported. The saving quoted is measured on
/// the streak's own warm opens (pool hits that neither queued nor connected), never on cold connects or queue time.
/// It keeps each flow's count of connections being opened or held (<see cref="FlowState"/>).
/// </summary>
internal sealed class ChurnDetector(FindingLog log) : PoolObserver
{
    private const int KeptTimes = 16;

    /// <summary>
    /// <see cref="DiagnosticsOptions.ChurnGap"/> in the clock's own timestamp units, so an open compares two timestamps
    /// instead of turning them into a <see cref="TimeSpan"/>.
    /// </summary>
    private readonly long _gap =
        (long)Math.Floor(log.Options.ChurnGap.Ticks * (log.Time.TimestampFrequency / (double)TimeSpan.TicksPerSecond));

    private DiagnosticsOptions Options => log.Options;

    public override HeardFacts Hears => HeardFacts.OpenStarting | HeardFacts.OpenCompleted | HeardFacts.OpenFailed | HeardFacts.Released;

    public override void OnOpenStarting(in OpenStart start)
    {
        if (start.Flow is { } flow)
            OnOpenStarting(flow, start.Started);
    }

    public override void OnOpenCompleted(in CompletedOpen open)
    {
        if (open.Start.Flow is { } flow)
            OnOpenCompleted(flow, open.Outcome, open.At);
    }

    public override void OnOpenFailed(in FailedOpen open) => open.Start.Flow?.Failed();

    /// <summary>The flow that opened the connection is told, wherever it is released.</summary>
    public override void OnReleased(in Release release) => release.Holder.Flow?.Released(release.At);

    /// <summary>Called as the flow enters Open, on the caller's stack.</summary>
    public void OnOpenStarting(FlowState flow, long now)
    {
        bool overlapping = flow.Began();
        long last = Volatile.Read(ref flow.LastRelease);
        bool backToBack = !overlapping && last != 0 && now - last <= _gap;
        if (!backToBack)
        {
            // Overlapping opens (forked tasks) or a pause between units of work: not churn; a new streak starts here.
            flow.Streak = 0;
            flow.WarmOpens = 0;
            flow.WarmOpenMs = 0;
            if (flow.WarmOpenTimes is { } times)
                Array.Clear(times);
            flow.Reported = false;
            flow.Site = null;
            flow.StreakStart = now;
        }

        // The call site is read here, before the open is awaited: an async continuation no longer has the caller's frames.
        // A replay reads none; it keeps the site the recording gave this streak, which may come before the replay's own
        // count reaches the threshold when the recording began after the streak did.
        if (++flow.Streak == Options.ChurnThreshold)
            flow.Site = CallSites.Caller() ?? flow.Site;
    }

    /// <summary>
    /// Called once the open completed successfully. A streak already reported is done with: its warm open times are read
    /// only by its report, and cleared when a new streak starts (<see cref="OnOpenStarting(FlowState, long)"/>), so its
    /// later opens keep none (a loop that churns on pays this step once a streak, not once an open).
    /// </summary>
    public void OnOpenCompleted(FlowState flow, in OpenOutcome outcome, long now)
    {
        if (flow.Reported)
            return;
        if (outcome.Warm)
        {
            double ms = outcome.Elapsed.TotalMilliseconds;
            if (flow.Streak >= 2)
                (flow.WarmOpenTimes ??= new double[KeptTimes])[flow.WarmOpens % KeptTimes] = ms;
            flow.WarmOpens++;
            flow.WarmOpenMs += ms;
        }

        if (flow.Streak < Options.ChurnThreshold)
            return;
        flow.Reported = true;
        Report(flow, now, flow.Site);
    }

    /// <summary>The median of the streak's kept warm open times (its opens from the second on), or null when none was kept.</summary>
    private static double? MedianWarmOpen(FlowState flow)
    {
        if (flow.WarmOpenTimes is not { } times)
            return null;
        double[] sorted = [.. times.Where(t => t > 0).Order()]; // slots not written yet (this streak's first open) are 0
        return sorted.Length == 0 ? null : sorted[sorted.Length / 2];
    }

    private void Report(FlowState flow, long now, string? site)
    {
        double spanMs = Math.Max(log.Time.GetElapsedTime(flow.StreakStart, now).TotalMilliseconds, 1e-3);
        double perSecond = flow.Streak * 1000 / spanMs;
        double meanMs = flow.WarmOpens == 0 ? double.NaN : flow.WarmOpenMs / flow.WarmOpens;
        double perOpenMs = MedianWarmOpen(flow) ?? meanMs;
        CultureInfo c = CultureInfo.InvariantCulture;
        string cost = flow.WarmOpens == 0
            ? "None of these opens was a plain pool hit (each queued for the pool or made a new connection), so no warm open cost was measured; "
            : string.Create(c, $"A warm open costs {perOpenMs:0.###} ms here (the median of the last of the {flow.WarmOpens} that neither queued ") +
              "for the pool nor made a new connection, so the first calls' compiling is not priced in), " +
              "plus what the provider defers to the next command (session reset, re-prepared statements); ";
        const string Cures = "a ConnectionScope around the unit of work (db.BeginScope()), one Session or ReuseConnection mode";
        string saving = flow.WarmOpens == 0
            ? Cures + " would open once instead."
            : Cures + string.Create(
                c, $" would save about {perOpenMs:0.###} ms per call, {perOpenMs * perSecond:0.#} ms per second at this rate.");
        log.Report(FindingKind.Churn,
            string.Create(c, $"{flow.Streak} connection opens back to back on one flow of pool '{log.PoolName}'") +
            (site is null ? "" : $" (from {site})") +
            string.Create(c, $": each within {Options.ChurnGap.TotalMilliseconds:0.###} ms of the previous release, {perSecond:0.#} opens/s. ") + cost + saving,
            new Dictionary<string, double>
            {
                ["opens"] = flow.Streak,
                ["windowMs"] = spanMs,
                ["opensPerSecond"] = perSecond,
                ["warmOpens"] = flow.WarmOpens,
                ["meanOpenMs"] = double.IsNaN(meanMs) ? -1 : meanMs,
                ["warmOpenMs"] = double.IsNaN(perOpenMs) ? -1 : perOpenMs,
                ["savedMsPerSecond"] = double.IsNaN(perOpenMs) ? -1 : perOpenMs * perSecond,
            },
            site, rateLimited: true);
    }
}
