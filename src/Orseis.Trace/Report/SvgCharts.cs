using System.Globalization;
using System.Net;
using System.Text;

namespace Orseis.Trace.Report;

/// <summary>
/// The HTML report's charts as inline SVG: a few kilobytes of text, no native code. (ScottPlot draws through SkiaSharp,
/// whose native libraries for every platform made a tool package of 187 MB, measured; these charts need none.)
/// </summary>
internal static class SvgCharts
{
    private const int Width = 760, Height = 240, Left = 56, Right = 16, Top = 28, Bottom = 40;
    private static readonly double[] Edges = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000];

    /// <summary>How many opens took how long: log-spaced bins from 10 µs to 5 s (and more).</summary>
    public static string OpenTimeHistogram(string pool, IReadOnlyList<double> openMs)
    {
        int[] counts = new int[Edges.Length + 1];
        foreach (double ms in openMs)
        {
            int bin = Array.FindIndex(Edges, e => ms < e);
            counts[bin < 0 ? Edges.Length : bin]++;
        }

        string[] labels = [.. Enumerable.Range(0, counts.Length).Select(i => i == 0 ? $"<{N(Edges[0])}"
            : i == Edges.Length ? $">={N(Edges[^1])}" : $"{N(Edges[i - 1])}-{N(Edges[i])}")];
        var svg = Start($"open time of pool '{pool}' (ms, {openMs.Count} opens)");
        int max = Math.Max(1, counts.Max());
        double slot = (Width - Left - Right) / (double)counts.Length;
        for (int i = 0; i < counts.Length; i++)
        {
            double h = (Height - Top - Bottom) * counts[i] / (double)max;
            double x = Left + (i * slot) + 2, y = Height - Bottom - h;
            svg.Append(Inv($"<rect x='{x:0.#}' y='{y:0.#}' width='{slot - 4:0.#}' height='{h:0.#}' fill='#1f77b4'/>"));
            if (counts[i] > 0)
            {
                double middle = x + ((slot - 4) / 2);
                svg.Append(Inv($"<text x='{middle:0.#}' y='{y - 3:0.#}' text-anchor='middle' font-size='10'>{counts[i]}</text>"));
            }

            double mid = x + ((slot - 4) / 2);
            svg.Append(Inv($"<text x='{mid:0.#}' y='{Height - Bottom + 12}' text-anchor='middle' font-size='8'>{labels[i]}</text>"));
        }

        svg.Append(Inv($"<text x='{Width / 2}' y='{Height - 6}' text-anchor='middle' font-size='11'>open time, ms</text>"));
        return End(svg);
    }

    /// <summary>Opens per bucket and connections in use over the recording, with the findings marked where they were raised.</summary>
    public static string Timeline(string pool, DateTime start, double seconds, IReadOnlyList<(DateTime Time, double Ms)> opens,
        IReadOnlyList<(DateTime Time, int InUse)> inUse, IReadOnlyList<FindingReport> findings)
    {
        seconds = Math.Max(seconds, 0.001);
        int buckets = Math.Clamp((int)Math.Ceiling(seconds * 4), 1, 120);
        double bucketSeconds = seconds / buckets;
        int Bucket(DateTime t) => Math.Clamp((int)((t.ToUniversalTime() - start).TotalSeconds / bucketSeconds), 0, buckets - 1);
        int[] opened = new int[buckets];
        int[] held = new int[buckets];
        foreach ((DateTime t, _) in opens)
            opened[Bucket(t)]++;
        foreach ((DateTime t, int n) in inUse)
            held[Bucket(t)] = Math.Max(held[Bucket(t)], n);
        var svg = Start($"pool '{pool}' over time: opens per {bucketSeconds * 1000:0} ms (bars), peak in use (line), findings (red)");
        double max = Math.Max(1, Math.Max(opened.Max(), held.Max()));
        double slot = (Width - Left - Right) / (double)buckets;
        double Y(double v) => Height - Bottom - ((Height - Top - Bottom) * v / max);
        for (int i = 0; i < buckets; i++)
        {
            double x = Left + (i * slot), y = Y(opened[i]), w = Math.Max(1, slot - 1), h = Height - Bottom - y;
            svg.Append(Inv($"<rect x='{x:0.#}' y='{y:0.#}' width='{w:0.#}' height='{h:0.#}' fill='#9ecae1'/>"));
        }

        string points = string.Join(' ', held.Select((n, i) => Inv($"{Left + ((i + 0.5) * slot):0.#},{Y(n):0.#}")));
        svg.Append(Inv($"<polyline points='{points}' fill='none' stroke='#2ca02c' stroke-width='2'/>"));
        foreach (FindingReport f in findings)
        {
            double x = Left + ((f.Time - start).TotalSeconds / seconds * (Width - Left - Right));
            svg.Append(Inv($"<line x1='{x:0.#}' y1='{Top}' x2='{x:0.#}' y2='{Height - Bottom}' stroke='#d62728' stroke-dasharray='4 2'/>"));
            // A label near the right edge goes to the left of its line.
            (double labelX, string anchor) = x > Width - Right - 80 ? (x - 3, "end") : (x + 3, "start");
            svg.Append(Inv($"<text x='{labelX:0.#}' y='{Top + 10}' font-size='10' fill='#d62728' text-anchor='{anchor}'>"))
                .Append(WebUtility.HtmlEncode(f.Kind)).Append("</text>");
        }

        svg.Append(Inv($"<text x='{Left - 4}' y='{Top + 4}' text-anchor='end' font-size='10'>{max:0}</text>"));
        svg.Append(Inv($"<text x='{Left - 4}' y='{Height - Bottom}' text-anchor='end' font-size='10'>0</text>"));
        string axis = Inv($"seconds since the recording started (0 to {seconds:0.##})");
        svg.Append(Inv($"<text x='{Width / 2}' y='{Height - 6}' text-anchor='middle' font-size='11'>{axis}</text>"));
        return End(svg);
    }

    private static StringBuilder Start(string title)
    {
        var svg = new StringBuilder();
        svg.Append(Inv($"<svg xmlns='http://www.w3.org/2000/svg' width='{Width}' height='{Height}' viewBox='0 0 {Width} {Height}' "))
            .Append("font-family='sans-serif' role='img'>");
        svg.Append(Inv($"<text x='{Left}' y='16' font-size='12' font-weight='bold'>{WebUtility.HtmlEncode(title)}</text>"));
        svg.Append(Inv($"<line x1='{Left}' y1='{Height - Bottom}' x2='{Width - Right}' y2='{Height - Bottom}' stroke='#333'/>"));
        svg.Append(Inv($"<line x1='{Left}' y1='{Top}' x2='{Left}' y2='{Height - Bottom}' stroke='#333'/>"));
        return svg;
    }

    private static string End(StringBuilder svg) => svg.Append("</svg>").ToString();

    private static string N(double v) => v.ToString("0.##", CultureInfo.InvariantCulture);

    private static string Inv(FormattableString s) => s.ToString(CultureInfo.InvariantCulture);
}
