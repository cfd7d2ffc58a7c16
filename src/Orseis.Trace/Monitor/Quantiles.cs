using System.Globalization;

namespace Orseis.Trace.Monitor;

/// <summary>Percentiles in milliseconds, read from a histogram's quantiles text (<c>0.5=s;0.95=s;0.99=s</c>, in seconds).</summary>
/// <param name="P50">The median, ms.</param>
/// <param name="P95">The 95th percentile, ms.</param>
/// <param name="P99">The 99th percentile, ms.</param>
internal sealed record Quantiles(double P50, double P95, double P99)
{
    public static Quantiles? FromSeconds(string text)
    {
        double p50 = double.NaN, p95 = double.NaN, p99 = double.NaN;
        foreach (string part in text.Split(';', StringSplitOptions.RemoveEmptyEntries))
        {
            string[] kv = part.Split('=', 2);
            if (kv.Length != 2 || !double.TryParse(kv[1], NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds))
                continue;
            double ms = Math.Round(seconds * 1000, 3);
            switch (kv[0])
            {
                case "0.5":
                    p50 = ms;
                    break;
                case "0.95":
                    p95 = ms;
                    break;
                case "0.99":
                    p99 = ms;
                    break;
            }
        }

        return double.IsNaN(p50) ? null : new Quantiles(p50, p95, p99);
    }

    public override string ToString() =>
        string.Create(CultureInfo.InvariantCulture, $"p50 {P50:0.###} / p95 {P95:0.###} / p99 {P99:0.###} ms");
}
