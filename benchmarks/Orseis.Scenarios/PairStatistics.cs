using System.Globalization;

namespace Orseis.Scenarios;

/// <summary>
/// Estimates over independent process pairs with 95 % t-intervals: a ratio's geometric mean (the mean of the logs) and
/// a difference's mean. The pairs are independent; blocks within a pair are not, and are never counted as samples.
/// </summary>
internal static class PairStatistics
{
    // Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom.
    private static readonly double[] StudentT =
    [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];

    /// <summary>The geometric mean of <paramref name="ratios"/> and its interval.</summary>
    public static Interval Ratio(IEnumerable<double> ratios)
    {
        Interval logs = Mean(ratios.Select(r => Math.Log(r)));
        return new(Math.Exp(logs.Estimate), Math.Exp(logs.Low), Math.Exp(logs.High));
    }

    /// <summary>The mean of <paramref name="values"/> and its interval.</summary>
    public static Interval Mean(IEnumerable<double> values)
    {
        double[] v = [.. values];
        double mean = v.Average();
        double sd = Math.Sqrt(v.Sum(x => (x - mean) * (x - mean)) / (v.Length - 1));
        double half = StudentT[Math.Min(v.Length - 1, StudentT.Length) - 1] * sd / Math.Sqrt(v.Length);
        return new(mean, mean - half, mean + half);
    }

    internal static double Median(IEnumerable<double> values)
    {
        double[] sorted = [.. values.Order()];
        return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
    }

    /// <summary>An estimate and its 95 % interval.</summary>
    internal readonly record struct Interval(double Estimate, double Low, double High)
    {
        /// <summary>This interval divided by <paramref name="denominator"/>.</summary>
        public Interval Per(double denominator) => new(Estimate / denominator, Low / denominator, High / denominator);

        /// <summary>A ratio as a change: <c>+1.9% (-10.8% .. +16.5%)</c>.</summary>
        public string AsPercent() => new Interval(Estimate - 1, Low - 1, High - 1).AsShare();

        /// <summary>A share: <c>+0.8% (+0.7% .. +0.9%)</c>.</summary>
        public string AsShare() =>
            string.Create(CultureInfo.InvariantCulture, $"{Estimate:+0.0%;-0.0%;0.0%} ({Low:+0.0%;-0.0%;0.0%} .. {High:+0.0%;-0.0%;0.0%})");

        /// <summary>A difference in microseconds: <c>+0.85 µs (+0.70 .. +1.00)</c>.</summary>
        public string AsMicroseconds() =>
            string.Create(CultureInfo.InvariantCulture, $"{Estimate:+0.00;-0.00;0.00} µs ({Low:+0.00;-0.00;0.00} .. {High:+0.00;-0.00;0.00})");
    }
}
