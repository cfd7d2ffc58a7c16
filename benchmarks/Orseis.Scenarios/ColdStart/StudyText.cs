using System.Globalization;

namespace Orseis.Scenarios.ColdStart;

/// <summary>What the studies that drive the SlowApp sample (coldstart, failover) write in their tables.</summary>
internal static class StudyText
{
    /// <summary>The median of <paramref name="numbers"/> and, with more than one, their [range].</summary>
    public static string Spread(IEnumerable<double> numbers, string format = "0.00")
    {
        double[] values = [.. numbers.Order()];
        double median = values.Length % 2 == 1 ? values[values.Length / 2] : (values[(values.Length / 2) - 1] + values[values.Length / 2]) / 2;
        string m = median.ToString(format, CultureInfo.InvariantCulture);
        return values.Length == 1 ? m : $"{m} [{values[0].ToString(format, CultureInfo.InvariantCulture)}–{values[^1].ToString(format, CultureInfo.InvariantCulture)}]";
    }

    /// <summary>The counts that grew from <paramref name="before"/> to <paramref name="after"/>, by how much.</summary>
    public static Dictionary<string, long> Added(Dictionary<string, long> before, Dictionary<string, long> after) =>
        after.Where(f => f.Value > before.GetValueOrDefault(f.Key)).ToDictionary(f => f.Key, f => f.Value - before.GetValueOrDefault(f.Key));

    /// <summary>Counts as <c>kind xN, ...</c>, or "none".</summary>
    public static string Counts(Dictionary<string, long> counts) =>
        counts.Count == 0 ? "none" : string.Join(", ", counts.Select(f => $"{f.Key} x{f.Value}"));

    public static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
