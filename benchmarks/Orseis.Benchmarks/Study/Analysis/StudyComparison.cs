using System.Globalization;
using System.Text;

namespace Orseis.Benchmarks.Study.Analysis;

/// <summary>
/// <c>compare first.json second.json</c>: whether a rerun reproduces a run, N by N: each run's ratio inside the other's
/// 95 % interval, and the two intervals overlapping.
/// </summary>
public static class StudyComparison
{
    /// <summary>Compares two runs of one provider; prints a table and returns 0, or 1 when a file cannot be read.</summary>
    public static int Run(string first, string second)
    {
        StudyResults a, b;
        try
        {
            (a, b) = (StudyResults.Read(first), StudyResults.Read(second));
        }
        catch (Exception error) when (error is IOException or InvalidDataException or System.Text.Json.JsonException)
        {
            Console.Error.WriteLine(error.Message);
            return 1;
        }

        Console.Write(Table(a, b));
        return 0;
    }

    /// <summary>The comparison table and a closing count.</summary>
    public static string Table(StudyResults a, StudyResults b)
    {
        var text = new StringBuilder();
        text.AppendLine(Invariant($"| library | N | first: ratio [95 % CI] | second: ratio [95 % CI] | second in first's CI | first in second's CI |"));
        text.AppendLine("|---|---:|---|---|---|---|");
        int pairs = 0, inside = 0, both = 0, overlap = 0;
        foreach (StudyPoint p in a.Points.Where(p => p.Variant == nameof(RatioStudy.OpenPerCall)))
        {
            StudyPoint? q = b.Points.FirstOrDefault(x => x.Library == p.Library && x.Variant == p.Variant && x.N == p.N);
            if (q is null)
                continue;
            bool qInP = q.Ratio >= p.Interval.Low && q.Ratio <= p.Interval.High;
            bool pInQ = p.Ratio >= q.Interval.Low && p.Ratio <= q.Interval.High;
            pairs++;
            inside += qInP ? 1 : 0;
            both += qInP && pInQ ? 1 : 0;
            overlap += p.Interval.Low <= q.Interval.High && q.Interval.Low <= p.Interval.High ? 1 : 0;
            text.AppendLine(Invariant(
                $"| {p.Library} | {p.N} | {p.Ratio:F3} [{p.Interval.Low:F3}–{p.Interval.High:F3}] | {q.Ratio:F3} [{q.Interval.Low:F3}–{q.Interval.High:F3}] | {(qInP ? "yes" : "**no**")} | {(pInQ ? "yes" : "**no**")} |"));
        }

        text.AppendLine();
        text.AppendLine(Invariant($"{pairs} points: second run's ratio inside the first's interval at {inside}, each inside the other's at {both}, intervals overlapping at {overlap}."));
        return text.ToString();
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
