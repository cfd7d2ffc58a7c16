using System.Globalization;
using Orseis.Benchmarks.Study;
using Orseis.Benchmarks.Study.Analysis;
using ScottPlot;

namespace Orseis.Benchmarks.Charts;

/// <summary>
/// The study's charts, drawn with ScottPlot and saved as PNG and SVG: the ratio per N of one or more providers (log y,
/// so 1.2x and 30x are both readable; a line at ratio 1; 95 % intervals as error bars; the 2014 figures) and, per
/// provider, the time of N queries (log-log). Log axes are drawn as log values with labelled ticks. Raw ADO.NET is
/// told from Orseis by open square markers and thinner lines, not dashes (ScottPlot's SVG output draws no dashes).
/// </summary>
public static class StudyCharts
{
    private const int Width = 1100, Height = 650;

    private static readonly Color[] Palette =
    [
        Color.FromHex("#1f77b4"), Color.FromHex("#d62728"), Color.FromHex("#2ca02c"), Color.FromHex("#9467bd"),
        Color.FromHex("#ff7f0e"), Color.FromHex("#8c564b"), Color.FromHex("#17becf"), Color.FromHex("#e377c2"),
        Color.FromHex("#bcbd22"), Color.FromHex("#393b79"), Color.FromHex("#e7ba52"), Color.FromHex("#843c39"),
    ];

    /// <summary>Draws the ratio chart of <paramref name="runs"/>; returns the files written.</summary>
    public static IReadOnlyList<string> Ratio(IReadOnlyList<StudyResults> runs, string pathWithoutExtension)
    {
        Plot plot = new();
        plot.Title(runs.Count == 1 ? $"Open per call, a scope and a session / reuse, N sequential 'select 1' ({runs[0].Provider})" : "Open per call, a scope and a session / reuse, N sequential 'select 1'");
        plot.XLabel("N (sequential queries)");
        plot.YLabel("ratio (log scale), 95 % CI");
        plot.Add.HorizontalLine(0, 2f, Colors.Gray, LinePattern.Solid).LegendText = "ratio 1 (no cost)";
        var all = new List<double>();
        int series = 0;
        for (int i = 0; i < runs.Count; i++)
        {
            foreach ((string library, string variant) in runs[i].Libraries.Select(l => (l, nameof(RatioStudy.OpenPerCall)))
                         .Append((StudyParameters.Orseis, nameof(RatioStudy.AdaptiveScope)))
                         .Append((StudyParameters.Orseis, nameof(RatioStudy.SessionPerUnit))))
            {
                StudyPoint[] line = [.. runs[i].Line(library, variant)];
                if (line.Length == 0)
                    continue;
                bool ado = library != StudyParameters.Orseis;
                bool scoped = variant == nameof(RatioStudy.AdaptiveScope);
                bool session = variant == nameof(RatioStudy.SessionPerUnit);
                double offset = ado ? 0.12 : scoped ? -0.04 : session ? 0.04 : -0.12; // error bars side by side
                double[] xs = [.. line.Select(p => Math.Log2(p.N) + offset)];
                double[] ys = [.. line.Select(p => Math.Log10(p.Ratio))];
                Color color = Palette[series++ % Palette.Length];
                var scatter = plot.Add.Scatter(xs, ys, color);
                scatter.LegendText = scoped ? $"{runs[i].Provider}, Orseis in a ConnectionScope"
                    : session ? $"{runs[i].Provider}, Orseis, a Session per N" : $"{runs[i].Provider}, {library}";
                scatter.LineWidth = 2;
                scatter.MarkerSize = 7;
                scatter.MarkerShape = ado ? MarkerShape.OpenSquare
                    : scoped ? MarkerShape.FilledTriangleUp : session ? MarkerShape.FilledSquare : MarkerShape.FilledCircle;
                scatter.LineWidth = ado ? 1.5f : 2.5f;
                double[] up = [.. line.Select(p => double.IsNaN(p.Interval.High) ? 0 : Math.Log10(p.Interval.High) - Math.Log10(p.Ratio))];
                double[] down = [.. line.Select(p => double.IsNaN(p.Interval.Low) ? 0 : Math.Log10(p.Ratio) - Math.Log10(p.Interval.Low))];
                var bars = new ScottPlot.Plottables.ErrorBar(xs, ys, null, null, up, down) { Color = color, LineWidth = 1.5f, CapSize = 5 };
                plot.Add.Plottable(bars);
                all.AddRange(line.Select(p => p.Ratio));
                all.AddRange(line.Select(p => p.Interval.Low).Where(v => !double.IsNaN(v)));
                all.AddRange(line.Select(p => p.Interval.High).Where(v => !double.IsNaN(v)));
            }
        }

        var original = plot.Add.Scatter(new[] { Math.Log2(32), Math.Log2(5000) }, new[] { Math.Log10(8.5), Math.Log10(12) }, Colors.Black);
        original.LineWidth = 0;
        original.MarkerShape = MarkerShape.FilledDiamond;
        original.MarkerSize = 11;
        original.LegendText = "2014, SQL Server Express (8.5x, 12x)";
        all.AddRange([8.5, 12, 1]);
        PowersOfTwoAxis(plot);
        LogAxis(plot, all.Min(), all.Max(), v => v.ToString("0.##", CultureInfo.InvariantCulture) + "x");
        plot.ShowLegend(Edge.Right);
        return Save(plot, pathWithoutExtension);
    }

    /// <summary>Draws the time of N queries per library and mode for one run (log-log); returns the files written.</summary>
    public static IReadOnlyList<string> TimePerN(StudyResults run, string pathWithoutExtension)
    {
        Plot plot = new();
        plot.Title($"Time of N sequential 'select 1' ({run.Provider}, {run.Package})");
        plot.XLabel("N (sequential queries)");
        plot.YLabel("time of N queries, median of the rounds (log scale)");
        var all = new List<double>();
        int color = 0;
        foreach (string library in run.Libraries)
        {
            StudyPoint[] line = [.. run.Line(library, nameof(RatioStudy.OpenPerCall))];
            bool ado = library != StudyParameters.Orseis;
            foreach ((string mode, Func<StudyPoint, double> ns) in new (string, Func<StudyPoint, double>)[]
                     { ("reuse", p => StudyPoint.Median(p.ReuseNs)), ("open per call", p => StudyPoint.Median(p.VariantNs)) })
            {
                double[] xs = [.. line.Select(p => Math.Log2(p.N))];
                double[] ys = [.. line.Select(p => Math.Log10(ns(p) / 1e6))];
                var scatter = plot.Add.Scatter(xs, ys, Palette[color++ % Palette.Length]);
                scatter.LegendText = $"{library}, {mode}";
                scatter.LineWidth = 2;
                scatter.MarkerSize = 6;
                scatter.MarkerShape = ado ? MarkerShape.OpenSquare : MarkerShape.FilledCircle;
                all.AddRange(line.Select(p => ns(p) / 1e6));
            }
        }

        if (all.Count == 0)
            return []; // a run of the scope variants alone has no open-per-call line to draw
        PowersOfTwoAxis(plot);
        LogAxis(plot, all.Min(), all.Max(), Milliseconds);
        plot.ShowLegend(Alignment.UpperLeft);
        return Save(plot, pathWithoutExtension);
    }

    private static void PowersOfTwoAxis(Plot plot)
    {
        var ticks = new ScottPlot.TickGenerators.NumericManual();
        for (int e = 1; e <= StudySizes.MaxExponent; e++)
        {
            int n = 1 << e;
            ticks.AddMajor(e, n >= 1024 ? $"{n / 1024}k" : n.ToString(CultureInfo.InvariantCulture));
        }

        plot.Axes.Bottom.TickGenerator = ticks;
        plot.Axes.SetLimitsX(0.5, StudySizes.MaxExponent + 0.5);
    }

    /// <summary>A log10 y axis: ticks at 1, 2 and 5 times each power of ten within [min, max].</summary>
    private static void LogAxis(Plot plot, double min, double max, Func<double, string> label)
    {
        double low = Math.Floor(Math.Log10(min)), high = Math.Ceiling(Math.Log10(max));
        var ticks = new ScottPlot.TickGenerators.NumericManual();
        for (double decade = low; decade <= high; decade++)
        {
            foreach (double step in new[] { 1.0, 2, 5 })
            {
                double value = step * Math.Pow(10, decade);
                if (value >= min / 1.5 && value <= max * 1.5)
                    ticks.AddMajor(Math.Log10(value), label(value));
            }

            for (int minor = 2; minor <= 9; minor++)
                ticks.AddMinor(Math.Log10(minor * Math.Pow(10, decade)));
        }

        plot.Axes.Left.TickGenerator = ticks;
        plot.Axes.SetLimitsY(Math.Log10(min) - 0.08, Math.Log10(max) + 0.08);
    }

    private static string Milliseconds(double ms) =>
        ms >= 1000 ? (ms / 1000).ToString("0.##", CultureInfo.InvariantCulture) + " s"
        : ms >= 1 ? ms.ToString("0.##", CultureInfo.InvariantCulture) + " ms"
        : (ms * 1000).ToString("0.##", CultureInfo.InvariantCulture) + " us";

    private static string[] Save(Plot plot, string pathWithoutExtension)
    {
        string png = pathWithoutExtension + ".png", svg = pathWithoutExtension + ".svg";
        plot.SavePng(png, Width, Height);
        plot.SaveSvg(svg, Width, Height);
        return [png, svg];
    }
}
