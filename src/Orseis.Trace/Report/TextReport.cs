using System.Globalization;
using System.Text;

namespace Orseis.Trace.Report;

/// <summary><c>report --format text</c>: per pool, what was found and the numbers behind it.</summary>
internal static class TextReport
{
    /// <summary>
    /// The one line a trace without the detectors' facts gets: they are Verbose events of keyword 0x10, written while the
    /// process's detectors are on. A trace holding other Verbose Orseis events was recorded at that level, so the keyword or the
    /// detectors were off; otherwise the trace cannot say which of the three was missing.
    /// </summary>
    public static string NoFacts(TraceReport report) => report.VerboseEvents
        ? "  no detector facts in this trace (it holds Orseis events at Verbose level but no facts: the Orseis keyword 0x10, "
            + "which orseis-trace collect records, was off, or the process's detectors were): only what the process reported is "
            + "shown, not replayed"
        : "  no detector facts in this trace (the Orseis keyword 0x10 at Verbose level (5), which orseis-trace collect records, "
            + "was not recorded, or the process's detectors were off): only what the process reported is shown, not replayed";

    private static string Names(IReadOnlyList<string> names) => names.Count == 0 ? "none" : string.Join(", ", names);

    public static string Write(TraceReport r)
    {
        var text = new StringBuilder();
        void Line(string line) => text.Append(line).Append('\n');
        string N(double? v) => v is { } x ? TraceFacts.Invariant(x) : "-";
        string P(Percentiles? p) => p is null ? "-" : string.Create(CultureInfo.InvariantCulture,
            $"p50 {N(p.P50)} / p95 {N(p.P95)} / p99 {N(p.P99)} / max {N(p.Max)} ms (n={p.Count})");

        Line($"orseis-trace report: {r.Trace}, {N(r.Seconds)} s recorded, {r.Pools.Count} pool(s)");
        if (r.Pools.Count == 0)
            Line("  no Orseis pool appears in this trace");
        if (!r.DetectorFacts)
            Line(NoFacts(r));
        foreach (PoolReport p in r.Pools)
        {
            Line("");
            Line($"pool '{p.Pool}' ({(p.System.Length > 0 ? p.System : "?")}): "
                + (p.Found.Count == 0 ? "nothing found" : "found " + string.Join(", ", p.Found)) + " (what the process reported)");
            Line($"  opens {N(p.Opens.Count)} ({N(p.Opens.PerSecond)}/s, from {p.Opens.From}), open time {P(p.Opens.Ms)}");
            Line($"  commands {N(p.Commands.Count)} ({N(p.Commands.PerSecond)}/s), command time {P(p.Commands.Ms)}");
            Line($"  held {P(p.HeldMs)}");
            Line($"  in use peak {N(p.PeakInUse)} of max {N(p.MaxPoolSize)}, waiting in Open peak {N(p.PeakWaiting)}, "
                + $"wait p99 peak {N(p.PeakWaitP99Ms)} ms, timeouts {N(p.Timeouts)}");
            Findings(p.Findings);
            if (p.Replay is not { } replay)
                continue;
            Line($"  what the detectors find on this trace (replayed over {replay.Facts} recorded facts): "
                + (replay.Found.Count == 0 ? "nothing found" : "found " + string.Join(", ", replay.Found)));
            Line($"    replayed: {Names(replay.Replayed)}; not replayable (see the process's findings): {Names(replay.NotReplayed)}");
            Findings(replay.Findings);
            if (replay.PoolSizeAdvice is { } advice)
                Line($"    pool-size advice: {advice}");
        }

        void Findings(IReadOnlyList<FindingReport> findings)
        {
            foreach (FindingReport f in findings)
            {
                Line($"  - [{f.Kind}] {f.Time:HH:mm:ss.fff}Z {f.Message}" + (f.HelpLink is { } link ? $" See {link}" : ""));
                if (f.Figures.Count > 0)
                    Line("      " + string.Join(", ", f.Figures.Select(kv => $"{kv.Key}={kv.Value}")));
            }
        }

        Line("");
        Line($"thread pool: {r.ThreadPool.Adjustments} adjustment(s), {r.ThreadPool.StarvationInjections} injection(s) for starvation, "
            + $"peak threads {N(r.ThreadPool.PeakThreads)}, peak queue {N(r.ThreadPool.PeakQueueLength)}");
        foreach (ProviderMeterReport m in r.ProviderMeters)
            Line($"provider meter {m.Meter}: {m.Instrument} peak {N(m.Peak)} [{m.Tags}]");
        return text.ToString();
    }
}
