using System.Text.Json;
using System.Text.Json.Serialization;

namespace Orseis.Benchmarks.Study.Analysis;

/// <summary>One study run of one provider: every paired ratio, and where and how it was measured.</summary>
/// <param name="Provider">The provider name (sqlite, mysql, ...), or the label given to the chart command.</param>
/// <param name="Package">The provider package and version, e.g. "MySqlConnector 2.6.2".</param>
/// <param name="Rounds">Rounds measured.</param>
/// <param name="Clock">What was timed: "thread CPU time" or "wall time".</param>
/// <param name="Started">When the run started (UTC).</param>
/// <param name="Seconds">Wall time of the benchmark run.</param>
/// <param name="Points">One point per library, variant and N.</param>
public sealed record StudyResults(string Provider, string Package, int Rounds, string Clock, DateTime Started, double Seconds, IReadOnlyList<StudyPoint> Points)
{
    /// <summary>The file name of a provider's results.</summary>
    public static string FileName(string provider) => $"study-{provider}.json";

    private static readonly JsonSerializerOptions Json = new() { WriteIndented = true, DefaultIgnoreCondition = JsonIgnoreCondition.Never };

    /// <summary>The points of one library and variant, by N.</summary>
    public IEnumerable<StudyPoint> Line(string library, string variant) =>
        Points.Where(p => p.Library == library && p.Variant == variant).OrderBy(p => p.N);

    /// <summary>The libraries measured, Orseis first.</summary>
    public IEnumerable<string> Libraries => Points.Select(p => p.Library).Distinct().OrderBy(l => l == StudyParameters.Orseis ? 0 : 1);

    /// <summary>Writes the results as indented JSON.</summary>
    public void Write(string path) => File.WriteAllText(path, JsonSerializer.Serialize(this, Json));

    /// <summary>Reads results written by <see cref="Write"/>.</summary>
    public static StudyResults Read(string path) =>
        JsonSerializer.Deserialize<StudyResults>(File.ReadAllText(path), Json) ?? throw new InvalidDataException($"{path} holds no study results.");
}

/// <summary>
/// One library, variant and N: the time of N queries in each round for the variant and for reuse (the baseline of
/// the same round), and the statistics of their ratios.
/// </summary>
/// <param name="Library">Orseis or ADO.NET.</param>
/// <param name="Variant">
/// OpenPerCall, OpenPerCallUnpooled, OpenPerCallNoResetOnClose, AdaptiveScope, SessionPerUnit or ScopeOverSession (whose
/// baseline is the session, not reuse).
/// </param>
/// <param name="N">Sequential queries per call.</param>
/// <param name="ReuseNs">Per round: the time of N queries with reuse (with a session for ScopeOverSession), in nanoseconds.</param>
/// <param name="VariantNs">Per round: the time of N queries with the variant, in nanoseconds.</param>
/// <param name="Processes">Per round: the id of the process that measured it (absent in results of older runs).</param>
public sealed record StudyPoint(string Library, string Variant, int N, IReadOnlyList<double> ReuseNs, IReadOnlyList<double> VariantNs, IReadOnlyList<int>? Processes = null)
{
    /// <summary>The paired ratio of each round: variant / reuse.</summary>
    [JsonIgnore]
    public double[] Ratios => [.. VariantNs.Zip(ReuseNs, (v, r) => v / r)];

    /// <summary>The ratio: the median of the paired ratios.</summary>
    [JsonIgnore]
    public double Ratio => Median(Ratios);

    /// <summary>
    /// The 95 % confidence interval of the median ratio, free of any assumption about the distribution: the k-th
    /// smallest and k-th largest paired ratio, k the largest rank whose binomial tail P(X &lt; k), X ~ B(rounds, 1/2),
    /// is at most 2.5 % (for 20 rounds the 6th and 15th, 95.9 %). A round disturbed by other processes moves one ratio
    /// to an end of the list and the interval hardly at all. NaN below 6 rounds, where no such k exists.
    /// </summary>
    [JsonIgnore]
    public (double Low, double High) Interval
    {
        get
        {
            double[] sorted = [.. Ratios.Order()];
            int k = OrderStatistics.LowerRank(sorted.Length);
            return k == 0 ? (double.NaN, double.NaN) : (sorted[k - 1], sorted[sorted.Length - k]);
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

/// <summary>Ranks for a distribution-free confidence interval of a median.</summary>
public static class OrderStatistics
{
    /// <summary>
    /// The largest k (1-based) with P(X ≤ k − 1) ≤ 2.5 % for X ~ Binomial(n, 1/2), so that the k-th smallest and k-th
    /// largest of n values bracket the median with at least 95 % confidence; 0 when even the extremes do not (n &lt; 6).
    /// </summary>
    public static int LowerRank(int n)
    {
        int k = 0;
        double tail = 0;
        for (int j = 0; j < n; j++)
        {
            tail += Binomial(n, j) / Math.Pow(2, n);
            if (tail > 0.025)
                break;
            k = j + 1;
        }

        return k;
    }

    private static double Binomial(int n, int j)
    {
        double value = 1;
        for (int i = 1; i <= j; i++)
            value = value * (n - j + i) / i;
        return value;
    }
}
