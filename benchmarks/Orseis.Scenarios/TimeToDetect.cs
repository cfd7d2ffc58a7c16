using System.Globalization;
using System.Text;

namespace Orseis.Scenarios;

/// <summary>
/// Time to detect: for each run of a pathological scenario, how long after the scenario's onset each expected finding
/// kind first arrived (seconds; negative if it arrived before the onset the scenario marked), summed up per scenario
/// (median and max over the runs, the run beside the CPU hog apart) and per kind (over every run of every scenario that
/// expects it). A run in which an expected kind never arrived counts as missed, and one in which it first arrived before
/// the onset (made by the scenario's set-up, which the finding's rate limit then lets mask the pathology's) as early:
/// neither is a time.
/// Self-contained (no Orseis types), so the tests compile it as it is.
/// </summary>
internal static class TimeToDetect
{
    /// <summary>What one scenario contributes: its name, how its onset was defined, the kinds it expects, and each run's
    /// arrivals (kind to seconds after onset), the run beside the CPU hog apart (null when not run).</summary>
    public sealed record Scenario(
        string Name, string Onset, IReadOnlyList<string> Expected, IReadOnlyList<IReadOnlyDictionary<string, double[]>> Runs,
        IReadOnlyDictionary<string, double[]>? Hog);

    /// <summary>One expected kind of one scenario: the first arrival in each run that had one at or after the onset, how
    /// many runs missed it, how many had it first before the onset (<paramref name="Early"/>), and the hog run's first
    /// arrival (null when missed or not run; negative when early).</summary>
    public sealed record Row(string Scenario, string Onset, string Kind, IReadOnlyList<double> Times, int Missed, double? Hog, bool HogRun, int Early = 0)
    {
        public double? Median => Times.Count == 0 ? null : TimeToDetect.Median(Times);

        public double? Max => Times.Count == 0 ? null : Times.Max();
    }

    /// <summary>One kind over every scenario that expects it.</summary>
    public sealed record KindRow(string Kind, IReadOnlyList<string> Scenarios, IReadOnlyList<double> Times, int Missed, IReadOnlyList<double> HogTimes, int HogMissed, int Early = 0)
    {
        public double? Median => Times.Count == 0 ? null : TimeToDetect.Median(Times);

        public double? Max => Times.Count == 0 ? null : Times.Max();

        public double? HogMax => HogTimes.Count == 0 ? null : HogTimes.Max();

        /// <summary>Every run (the hog's apart) detected it within <paramref name="limit"/> seconds of its onset.</summary>
        public bool Within(double limit) => Missed == 0 && Early == 0 && Times.Count > 0 && Times.Max() <= limit;
    }

    /// <summary>The first arrival of <paramref name="kind"/> in a run, in seconds after onset; null if it never arrived.</summary>
    public static double? First(IReadOnlyDictionary<string, double[]>? arrivals, string kind) =>
        arrivals is not null && arrivals.TryGetValue(kind, out double[]? times) && times.Length > 0 ? times.Min() : null;

    /// <summary>The median (the mean of the middle two for an even count).</summary>
    public static double Median(IReadOnlyList<double> values)
    {
        if (values.Count == 0)
            throw new ArgumentException("the median of no value is undefined", nameof(values));
        double[] sorted = [.. values.Order()];
        int mid = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /// <summary>A row per (scenario, expected kind), in the scenarios' order; clean scenarios give none.</summary>
    public static IReadOnlyList<Row> PerScenario(IEnumerable<Scenario> scenarios) =>
    [
        .. scenarios.SelectMany(s => s.Expected.Select(kind =>
        {
            double?[] firsts = [.. s.Runs.Select(r => First(r, kind))];
            return new Row(
                s.Name, s.Onset, kind, [.. firsts.OfType<double>().Where(t => t >= 0)], firsts.Count(f => f is null),
                s.Hog is null ? null : First(s.Hog, kind), s.Hog is not null, firsts.Count(f => f < 0));
        })),
    ];

    /// <summary>A row per kind, in the order the kinds first appear in <paramref name="rows"/>.</summary>
    public static IReadOnlyList<KindRow> PerKind(IReadOnlyList<Row> rows) =>
    [
        .. rows.GroupBy(r => r.Kind).Select(g => new KindRow(
            g.Key, [.. g.Select(r => r.Scenario).Distinct()], [.. g.SelectMany(r => r.Times)], g.Sum(r => r.Missed),
            [.. g.Where(r => r.Hog is not null).Select(r => r.Hog!.Value)], g.Count(r => r.HogRun && r.Hog is null), g.Sum(r => r.Early))),
    ];

    /// <summary>Both tables, as markdown: per scenario, then per kind with whether every run was within <paramref name="limit"/> seconds.</summary>
    public static string Markdown(IReadOnlyList<Row> rows, int runs, double limit)
    {
        var s = new StringBuilder();
        CultureInfo c = CultureInfo.InvariantCulture;
        s.AppendLine(c, $"| scenario | onset | kind | median (of {runs} runs) | max | missed | before onset | beside CPU hog |");
        s.AppendLine("|---|---|---|---|---|---|---|---|");
        foreach (Row r in rows)
            s.AppendLine(c, $"| {r.Scenario} | {r.Onset} | {r.Kind} | {Seconds(r.Median)} | {Seconds(r.Max)} | {r.Missed} | {r.Early} | {(r.HogRun ? Seconds(r.Hog, "missed") : "not run")} |");

        s.AppendLine();
        s.AppendLine(c, $"| kind | scenarios | runs | median | max | within {limit:0.#} s? | max beside CPU hog |");
        s.AppendLine("|---|---|---|---|---|---|---|");
        foreach (KindRow k in PerKind(rows))
        {
            string[] why = [.. new[] { k.Missed > 0 ? $"{k.Missed} missed" : "", k.Early > 0 ? $"{k.Early} before onset" : "" }.Where(w => w.Length > 0)];
            string within = k.Within(limit) ? "yes" : why.Length > 0 ? $"no ({string.Join(", ", why)})" : "no";
            string hog = k.HogTimes.Count == 0 && k.HogMissed == 0 ? "not run" : Seconds(k.HogMax, "missed") + (k.HogMissed > 0 && k.HogTimes.Count > 0 ? $" ({k.HogMissed} missed)" : "");
            s.AppendLine(c, $"| {k.Kind} | {k.Scenarios.Count} | {k.Times.Count + k.Missed + k.Early} | {Seconds(k.Median)} | {Seconds(k.Max)} | {within} | {hog} |");
        }

        return s.ToString();
    }

    private static string Seconds(double? value, string none = "-") =>
        value is { } v ? v.ToString("0.00", CultureInfo.InvariantCulture) + " s" : none;
}
