using System.Text.Json;
using System.Text.Json.Serialization;

namespace Orseis.Benchmarks.Study.Analysis;

/// <summary>One study run of one provider: every paired ratio, and where and how it was measured.</summary>
/// <param name="Provider">The provider name (sqlite, mysql, ...), or the label given to the chart command.</param>
/// <param name="Package">The provider package and version, e.g. "MySqlConnector 2.6.2".</param>
/// <param name="Rounds">Rounds measured.</param>
/// <param name="Started">When the run started (UTC).</param>
/// <param name="Seconds">Wall time of the benchmark run.</param>
/// <param name="Points">One point per library, variant and N.</param>
public sealed record StudyResults(string Provider, string Package, int Rounds, DateTime Started, double Seconds, IReadOnlyList<StudyPoint> Points)
{
    /// <summary>The file name of a provider's results.</summary>
    public static string FileName(string provider) => $"study-{provider}.json";

    private static readonly JsonSerializerOptions s_json = new() { WriteIndented = true, DefaultIgnoreCondition = JsonIgnoreCondition.Never };

    /// <summary>The points of one library and variant, by N.</summary>
    public IEnumerable<StudyPoint> Line(string library, string variant) =>
        Points.Where(p => p.Library == library && p.Variant == variant).OrderBy(p => p.N);

    /// <summary>The libraries measured, Orseis first.</summary>
    public IEnumerable<string> Libraries => Points.Select(p => p.Library).Distinct().OrderBy(l => l == StudyParameters.Orseis ? 0 : 1);

    /// <summary>Writes the results as indented JSON.</summary>
    public void Write(string path) => File.WriteAllText(path, JsonSerializer.Serialize(this, s_json));

    /// <summary>Reads results written by <see cref="Write"/>.</summary>
    public static StudyResults Read(string path) =>
        JsonSerializer.Deserialize<StudyResults>(File.ReadAllText(path), s_json) ?? throw new InvalidDataException($"{path} holds no study results.");
}

/// <summary>
/// One library, variant and N: the time of N queries in each round for the variant and for reuse (the baseline of
/// the same round), and the statistics of their ratios.
/// </summary>
/// <param name="Library">Orseis or ADO.NET.</param>
/// <param name="Variant">OpenPerCall, OpenPerCallUnpooled or OpenPerCallNoResetOnClose.</param>
/// <param name="N">Sequential queries per call.</param>
/// <param name="ReuseNs">Per round: the time of N queries with reuse, in nanoseconds.</param>
/// <param name="VariantNs">Per round: the time of N queries with the variant, in nanoseconds.</param>
public sealed record StudyPoint(string Library, string Variant, int N, IReadOnlyList<double> ReuseNs, IReadOnlyList<double> VariantNs)
{
    /// <summary>The paired ratio of each round: variant / reuse.</summary>
    [JsonIgnore]
    public double[] Ratios => [.. VariantNs.Zip(ReuseNs, (v, r) => v / r)];

    /// <summary>The ratio: geometric mean of the paired ratios.</summary>
    [JsonIgnore]
    public double Ratio => Math.Exp(Ratios.Average(r => Math.Log(r)));

    /// <summary>The 95 % confidence interval of <see cref="Ratio"/> (Student's t on the log ratios); NaN for one round.</summary>
    [JsonIgnore]
    public (double Low, double High) Interval
    {
        get
        {
            double[] logs = [.. Ratios.Select(r => Math.Log(r))];
            if (logs.Length < 2)
                return (double.NaN, double.NaN);
            double mean = logs.Average();
            double sd = Math.Sqrt(logs.Sum(l => (l - mean) * (l - mean)) / (logs.Length - 1));
            double half = StudentT.Quantile975(logs.Length - 1) * sd / Math.Sqrt(logs.Length);
            return (Math.Exp(mean - half), Math.Exp(mean + half));
        }
    }

    /// <summary>The interval's larger distance from the ratio, in % of the ratio.</summary>
    [JsonIgnore]
    public double HalfWidthPercent => Math.Max(Interval.High / Ratio - 1, 1 - Interval.Low / Ratio) * 100;

    /// <summary>Median time per query with reuse, in microseconds.</summary>
    [JsonIgnore]
    public double ReuseUsPerQuery => Median(ReuseNs) / N / 1000;

    /// <summary>Median time per query with the variant, in microseconds.</summary>
    [JsonIgnore]
    public double VariantUsPerQuery => Median(VariantNs) / N / 1000;

    /// <summary>The median of some values.</summary>
    public static double Median(IEnumerable<double> values)
    {
        double[] sorted = [.. values.Order()];
        return sorted.Length == 0 ? double.NaN
            : sorted.Length % 2 == 1 ? sorted[sorted.Length / 2]
            : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
    }
}

/// <summary>The 97.5 % quantile of Student's t distribution (two-sided 95 % intervals).</summary>
public static class StudentT
{
    private static readonly double[] s_table =
    [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];

    /// <summary>The quantile for <paramref name="degreesOfFreedom"/> (≥ 1); beyond 30, 30's value (slightly wide).</summary>
    public static double Quantile975(int degreesOfFreedom) =>
        degreesOfFreedom < 1 ? double.NaN : s_table[Math.Min(degreesOfFreedom, s_table.Length) - 1];
}
