using System.Net;
using System.Text;

namespace Orseis.Trace.Report;

/// <summary><c>report --format html</c>: one self-contained file (no script, no external link): per pool what was found,
/// the numbers, the open-time histogram and a timeline as inline SVG charts.</summary>
internal static class HtmlReport
{
    public static string Write(TraceReport r, TraceFacts facts)
    {
        var html = new StringBuilder();
        html.Append("<!doctype html>\n<html lang='en'><head><meta charset='utf-8'><title>orseis-trace report: ")
            .Append(E(r.Trace)).Append("</title><style>body{font-family:sans-serif;max-width:800px;margin:2em auto;color:#222}")
            .Append("pre{background:#f6f6f6;padding:.6em;white-space:pre-wrap}.found{color:#b00}.none{color:#080}")
            .Append("li{margin-bottom:.5em}</style></head><body>\n");
        html.Append("<h1>orseis-trace report</h1><p>").Append(E(r.Trace)).Append(", ")
            .Append(TraceFacts.Invariant(r.Seconds)).Append(" s recorded")
            .Append(r.Start is { } s ? $", from {s:yyyy-MM-dd HH:mm:ss.fff} UTC" : "")
            .Append(".</p>\n");
        if (!r.DetectorFacts)
            html.Append("<p>").Append(E(TextReport.NoFacts(r).Trim())).Append(".</p>\n");
        foreach (PoolReport p in r.Pools)
        {
            html.Append("<h2>pool '").Append(E(p.Pool)).Append("' (").Append(E(p.System.Length > 0 ? p.System : "?")).Append(")</h2>\n");
            html.Append(p.Found.Count == 0 ? "<p class='none'>Nothing found.</p>"
                : $"<p class='found'><b>Found: {E(string.Join(", ", p.Found))}</b></p>").Append('\n');
            Findings(html, p.Findings);
            if (p.Replay is { } replay)
            {
                html.Append("<h3>What the detectors find on this trace</h3><p>Replayed over ").Append(replay.Facts)
                    .Append(" recorded facts: ").Append(E(string.Join(", ", replay.Replayed)))
                    .Append(replay.NotReplayed.Count == 0 ? ""
                        : $"; not replayable (see above): {E(string.Join(", ", replay.NotReplayed))}")
                    .Append(".</p>\n")
                    .Append(replay.Found.Count == 0 ? "<p class='none'>Nothing found.</p>"
                        : $"<p class='found'><b>Replayed: {E(string.Join(", ", replay.Found))}</b></p>").Append('\n');
                Findings(html, replay.Findings);
                if (replay.PoolSizeAdvice is { } advice)
                    html.Append("<p>Pool-size advice: ").Append(E(advice)).Append("</p>\n");
            }

            if (facts.Pools.TryGetValue(p.Pool, out PoolFacts? pool))
            {
                if (pool.Opens.Count > 0)
                    html.Append(SvgCharts.OpenTimeHistogram(p.Pool, [.. pool.Opens.Select(o => o.Ms)])).Append('\n');
                if (r.Start is { } start)
                    html.Append(SvgCharts.Timeline(p.Pool, start, r.Seconds, pool.Opens, pool.InUse, p.Findings)).Append('\n');
            }
        }

        html.Append("<h2>The figures</h2><pre>").Append(E(TextReport.Write(r))).Append("</pre>\n</body></html>\n");
        return html.ToString();
    }

    private static void Findings(StringBuilder html, IReadOnlyList<FindingReport> findings)
    {
        if (findings.Count == 0)
            return;
        html.Append("<ul>");
        foreach (FindingReport f in findings)
        {
            html.Append("<li><b>").Append(E(f.Kind)).Append("</b> at ").Append(E($"{f.Time:HH:mm:ss.fff}")).Append(" UTC: ")
                .Append(E(f.Message));
            if (f.HelpLink is { } link)
                html.Append(" <a href=\"").Append(E(link.AbsoluteUri)).Append("\">What to do</a>");
            html.Append("<br><small>")
                .Append(E(string.Join(", ", f.Figures.Select(kv => $"{kv.Key}={kv.Value}")))).Append("</small></li>");
        }

        html.Append("</ul>\n");
    }

    private static string E(string text) => WebUtility.HtmlEncode(text);
}
