using System.Globalization;
using System.Text;

namespace Orseis.Benchmarks.Charts;

/// <summary>One line of a chart: a name for the legend and its points.</summary>
/// <param name="Name">The legend text.</param>
/// <param name="Points">The (x, y) points; drawn in x order.</param>
/// <param name="Dashed">Draws the line dashed (used for raw ADO.NET beside Orseis).</param>
public sealed record ChartSeries(string Name, IReadOnlyList<(double X, double Y)> Points, bool Dashed = false);

/// <summary>
/// A minimal SVG line chart: optional log axes (base 2 on x, base 10 on y), grid, tick labels, a legend and one
/// polyline with markers per series. No plotting package could be restored here, so this is ours.
/// </summary>
public sealed class SvgLineChart
{
    private const double Width = 900, Height = 540, Left = 80, Right = 250, Top = 50, Bottom = 60;
    private static readonly string[] s_colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];

    /// <summary>The title above the plot.</summary>
    public required string Title { get; init; }

    /// <summary>The x axis label.</summary>
    public required string XLabel { get; init; }

    /// <summary>The y axis label.</summary>
    public required string YLabel { get; init; }

    /// <summary>Log base 2 x axis.</summary>
    public bool LogX { get; init; } = true;

    /// <summary>Log base 10 y axis (otherwise linear from 0).</summary>
    public bool LogY { get; init; } = true;

    /// <summary>The lines.</summary>
    public List<ChartSeries> Series { get; } = [];

    /// <summary>Renders the chart as an SVG document.</summary>
    public string Render()
    {
        var points = Series.SelectMany(s => s.Points).Where(p => p.X > 0 && (!LogY || p.Y > 0)).ToList();
        if (points.Count == 0)
            throw new InvalidOperationException($"Chart '{Title}' has no points to draw.");
        double x0 = Fx(points.Min(p => p.X)), x1 = Fx(points.Max(p => p.X));
        double y0 = LogY ? Math.Floor(Fy(points.Min(p => p.Y))) : 0, y1 = LogY ? Math.Ceiling(Fy(points.Max(p => p.Y))) : NiceMax(points.Max(p => p.Y));
        if (x1 <= x0)
            x1 = x0 + 1;
        if (y1 <= y0)
            y1 = y0 + 1;
        double plotW = Width - Left - Right, plotH = Height - Top - Bottom;
        double Px(double x) => Left + ((Fx(x) - x0) / (x1 - x0) * plotW);
        double Py(double y) => Top + plotH - ((Fy(y) - y0) / (y1 - y0) * plotH);

        var svg = new StringBuilder();
        svg.Append(CultureInfo.InvariantCulture, $"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{Width}\" height=\"{Height}\" font-family=\"sans-serif\" font-size=\"12\">\n");
        svg.Append(CultureInfo.InvariantCulture, $"<rect width=\"{Width}\" height=\"{Height}\" fill=\"white\"/>\n");
        svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{Left + (plotW / 2)}\" y=\"28\" text-anchor=\"middle\" font-size=\"16\">{Escape(Title)}</text>\n");

        for (double e = Math.Ceiling(x0); e <= x1 + 1e-9; e++)
        {
            double value = LogX ? Math.Pow(2, e) : e;
            double px = Px(value);
            svg.Append(CultureInfo.InvariantCulture, $"<line x1=\"{px:F1}\" y1=\"{Top}\" x2=\"{px:F1}\" y2=\"{Top + plotH}\" stroke=\"#ddd\"/>\n");
            svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{px:F1}\" y=\"{Top + plotH + 16}\" text-anchor=\"middle\" font-size=\"10\">{Label(value)}</text>\n");
        }

        foreach (double tick in YTicks(y0, y1))
        {
            double py = Top + plotH - ((tick - y0) / (y1 - y0) * plotH);
            double value = LogY ? Math.Pow(10, tick) : tick;
            svg.Append(CultureInfo.InvariantCulture, $"<line x1=\"{Left}\" y1=\"{py:F1}\" x2=\"{Left + plotW}\" y2=\"{py:F1}\" stroke=\"#ddd\"/>\n");
            svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{Left - 6}\" y=\"{py + 4:F1}\" text-anchor=\"end\">{Label(value)}</text>\n");
        }

        svg.Append(CultureInfo.InvariantCulture, $"<rect x=\"{Left}\" y=\"{Top}\" width=\"{plotW}\" height=\"{plotH}\" fill=\"none\" stroke=\"#333\"/>\n");
        svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{Left + (plotW / 2)}\" y=\"{Height - 15}\" text-anchor=\"middle\">{Escape(XLabel)}</text>\n");
        svg.Append(CultureInfo.InvariantCulture, $"<text x=\"18\" y=\"{Top + (plotH / 2)}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {Top + (plotH / 2)})\">{Escape(YLabel)}</text>\n");

        for (int i = 0; i < Series.Count; i++)
        {
            ChartSeries series = Series[i];
            string color = s_colors[i % s_colors.Length];
            string dash = series.Dashed ? " stroke-dasharray=\"6 4\"" : "";
            var drawn = series.Points.Where(p => p.X > 0 && (!LogY || p.Y > 0)).OrderBy(p => p.X).ToList();
            string path = string.Join(" ", drawn.Select(p => string.Create(CultureInfo.InvariantCulture, $"{Px(p.X):F1},{Py(p.Y):F1}")));
            svg.Append(CultureInfo.InvariantCulture, $"<polyline points=\"{path}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"{dash}/>\n");
            foreach ((double x, double y) in drawn)
                svg.Append(CultureInfo.InvariantCulture, $"<circle cx=\"{Px(x):F1}\" cy=\"{Py(y):F1}\" r=\"3\" fill=\"{color}\"/>\n");
            double ly = Top + 10 + (i * 20);
            svg.Append(CultureInfo.InvariantCulture, $"<line x1=\"{Width - Right + 15}\" y1=\"{ly}\" x2=\"{Width - Right + 45}\" y2=\"{ly}\" stroke=\"{color}\" stroke-width=\"2\"{dash}/>\n");
            svg.Append(CultureInfo.InvariantCulture, $"<text x=\"{Width - Right + 50}\" y=\"{ly + 4}\">{Escape(series.Name)}</text>\n");
        }

        svg.Append("</svg>\n");
        return svg.ToString();
    }

    private double Fx(double x) => LogX ? Math.Log2(x) : x;

    private double Fy(double y) => LogY ? Math.Log10(y) : y;

    private IEnumerable<double> YTicks(double y0, double y1)
    {
        if (LogY)
            return Enumerable.Range(0, (int)(y1 - y0) + 1).Select(i => y0 + i);
        double step = NiceMax(y1 / 5);
        return Enumerable.Range(0, (int)Math.Round(y1 / step) + 1).Select(i => i * step);
    }

    private static double NiceMax(double value)
    {
        double magnitude = Math.Pow(10, Math.Floor(Math.Log10(value)));
        double normalized = value / magnitude;
        double nice = normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 2.5 ? 2.5 : normalized <= 5 ? 5 : 10;
        return nice * magnitude;
    }

    private static string Label(double value) =>
        value >= 1e6 || (value < 1e-2 && value > 0) ? value.ToString("0.#E+0", CultureInfo.InvariantCulture) : value.ToString("0.###", CultureInfo.InvariantCulture);

    private static string Escape(string text) => text.Replace("&", "&amp;", StringComparison.Ordinal).Replace("<", "&lt;", StringComparison.Ordinal).Replace(">", "&gt;", StringComparison.Ordinal);
}
