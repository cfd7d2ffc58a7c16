#:package ScottPlot
#:property PublishAot=false
// Draws the chaos soak's samples (ORSEIS_CHAOS_SAMPLES CSV files, one per server) as one PNG of four panels, and
// prints each column's median over the first and the last five minutes.
// dotnet run docs/results/retries/plot-soak.cs -- OUT.png NAME=FILE.csv [NAME=FILE.csv ...]
using System.Globalization;
using ScottPlot;

if (args.Length < 2)
{
    Console.Error.WriteLine("usage: plot-soak.cs OUT.png NAME=FILE.csv [NAME=FILE.csv ...]");
    return 2;
}

var runs = new List<(string Name, Dictionary<string, double[]> Columns)>();
foreach (string arg in args.Skip(1))
{
    string[] parts = arg.Split('=', 2);
    string[] lines = File.ReadAllLines(parts[1]).Where(l => l.Length > 0).ToArray();
    string[] header = lines[0].Split(',');
    double[][] rows = [.. lines.Skip(1).Select(l => l.Split(',').Select(v => double.Parse(v, CultureInfo.InvariantCulture)).ToArray())];
    var columns = new Dictionary<string, double[]>();
    for (int c = 0; c < header.Length; c++)
        columns[header[c]] = [.. rows.Select(r => r[c])];
    runs.Add((parts[0], columns));
}

Color[] palette = [Color.FromHex("#1f77b4"), Color.FromHex("#d62728"), Color.FromHex("#2ca02c"), Color.FromHex("#9467bd")];
var multiplot = new Multiplot();
multiplot.AddPlots(4);
Plot memory = multiplot.GetPlot(0), connections = multiplot.GetPlot(1), work = multiplot.GetPlot(2), failures = multiplot.GetPlot(3);
memory.Title("Test process memory (MB)");
connections.Title("The app's connections on the server (sampled every 10 s; all killed every 2 s)");
work.Title("Requests answered per second (each 10 s interval)");
failures.Title("Failed requests and retries per second (each 10 s interval)");
for (int i = 0; i < runs.Count; i++)
{
    (string name, Dictionary<string, double[]> col) = runs[i];
    double[] minutes = [.. col["s"].Select(s => s / 60)];
    Color color = palette[i % palette.Length];
    Line(memory, minutes, col["working set MB"], color, $"{name}: working set", LinePattern.Solid);
    bool live = col.ContainsKey("live heap MB");
    Line(memory, minutes, col[live ? "live heap MB" : "GC heap MB"], color, $"{name}: {(live ? "live heap (after a full GC)" : "GC heap")}", LinePattern.Dotted);
    Line(connections, minutes, col["app connections"], color, name, LinePattern.Solid);
    Line(work, minutes[1..], PerSecond(col["s"], col["reads ok"]), color, $"{name}: reads", LinePattern.Solid);
    Line(work, minutes[1..], PerSecond(col["s"], col["writes ok"]), color, $"{name}: writes", LinePattern.Dotted);
    Line(failures, minutes[1..], PerSecond(col["s"], col["retries"]), color, $"{name}: retries", LinePattern.Solid);
    Line(failures, minutes[1..], PerSecond(col["s"], col["writes failed"]), color, $"{name}: writes failed", LinePattern.Dotted);
    Line(failures, minutes[1..], PerSecond(col["s"], col["reads failed"]), color, $"{name}: reads failed", LinePattern.Dashed);

    Console.WriteLine($"{name}: {col["s"].Length} samples over {col["s"][^1] / 60:0.0} min");
    foreach (string column in new[] { "working set MB", "GC heap MB", "live heap MB", "GC committed MB", "threads", "app connections" })
    {
        if (!col.ContainsKey(column))
            continue;
        double[] first = Window(col["s"], col[column], 0, 300), last = Window(col["s"], col[column], col["s"][^1] - 300, col["s"][^1]);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"  {column}: median first 5 min {Median(first):0.#}, last 5 min {Median(last):0.#}; min {col[column].Min():0.#}, max {col[column].Max():0.#}"));
    }
}

foreach (Plot plot in new[] { memory, connections, work, failures })
{
    plot.XLabel("minutes");
    plot.ShowLegend(Alignment.UpperLeft);
    plot.Axes.SetLimitsY(0, plot.Axes.GetLimits().Top * 1.25);
}

multiplot.SavePng(args[0], 1100, 1500);
Console.WriteLine("wrote " + args[0]);
return 0;

static void Line(Plot plot, double[] xs, double[] ys, Color color, string label, LinePattern pattern)
{
    var scatter = plot.Add.Scatter(xs, ys, color);
    scatter.LegendText = label;
    scatter.MarkerSize = 0;
    scatter.LineWidth = 1.5f;
    scatter.LinePattern = pattern;
}

static double[] PerSecond(double[] seconds, double[] totals) =>
    [.. Enumerable.Range(1, totals.Length - 1).Select(i => (totals[i] - totals[i - 1]) / (seconds[i] - seconds[i - 1]))];

static double[] Window(double[] seconds, double[] values, double from, double to) =>
    [.. values.Where((_, i) => seconds[i] >= from && seconds[i] <= to)];

static double Median(double[] values)
{
    double[] sorted = [.. values.Order()];
    return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
}
