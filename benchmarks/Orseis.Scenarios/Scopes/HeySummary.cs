using System.Globalization;
using System.Text.RegularExpressions;

namespace Orseis.Scenarios.Scopes;

/// <summary>
/// What Debian's <c>hey</c> printed in its summary (no <c>-o csv</c>, which leaves out the requests that got no answer):
/// its wall time, the percentiles it computed over the answered requests, the answers by status and the requests that
/// failed without one (hey's error distribution: timeouts, refused connections).
/// </summary>
internal sealed partial record HeySummary(
    double TotalSeconds, double P50Seconds, double P99Seconds, IReadOnlyDictionary<int, long> Statuses, long NoAnswer)
{
    /// <summary>Requests answered 200.</summary>
    public long Ok => Statuses.GetValueOrDefault(200);

    /// <summary>Requests answered with another status, plus those with no answer.</summary>
    public long Failed => Statuses.Where(s => s.Key != 200).Sum(s => s.Value) + NoAnswer;

    /// <summary>Requests answered 200 per second of hey's wall time (its "Total", the tail after -z included).</summary>
    public double OkPerSecond => TotalSeconds > 0 ? Ok / TotalSeconds : 0;

    /// <summary>Reads hey's summary; a percentile hey did not print (nothing answered) is NaN.</summary>
    public static HeySummary Parse(string text)
    {
        Match total = TotalLine().Match(text);
        if (!total.Success)
            throw new InvalidDataException($"hey printed no 'Total:' line: '{(text.Length > 300 ? text[..300] : text)}'.");
        var statuses = StatusLine().Matches(text).ToDictionary(m => Int(m.Groups[1].Value), m => (long)Int(m.Groups[2].Value));
        long noAnswer = 0;
        int errors = text.IndexOf("Error distribution:", StringComparison.Ordinal);
        if (errors >= 0)
            noAnswer = ErrorLine().Matches(text[errors..]).Sum(m => (long)Int(m.Groups[1].Value));
        return new HeySummary(Number(total.Groups[1].Value), Percentile(text, 50), Percentile(text, 99), statuses, noAnswer);
    }

    /// <summary>
    /// Sends requests to <paramref name="url"/> from <paramref name="concurrency"/> workers for <paramref name="duration"/>
    /// (whole seconds, <c>-z</c>), or <paramref name="requests"/> requests in all when the duration is null (<c>-n</c>);
    /// hey times each request out after 20 s (its default). Kills hey after <paramref name="limit"/>.
    /// </summary>
    public static async Task<HeySummary> RunAsync(Uri url, int concurrency, TimeSpan? duration, int requests, TimeSpan limit)
    {
        string[] args = duration is { } d
            ? ["-z", Invariant((int)d.TotalSeconds) + "s", "-c", Invariant(concurrency), "-t", "20", url.ToString()]
            : ["-n", Invariant(requests), "-c", Invariant(concurrency), "-t", "20", url.ToString()];
        return Parse(await HeyProcess.RunAsync(args, limit));
    }

    private static double Percentile(string text, int p)
    {
        Match m = Regex.Match(text, $@"^\s*{p}% in ([0-9.]+) secs", RegexOptions.Multiline);
        return m.Success ? Number(m.Groups[1].Value) : double.NaN;
    }

    private static double Number(string text) => double.Parse(text, CultureInfo.InvariantCulture);

    private static int Int(string text) => int.Parse(text, CultureInfo.InvariantCulture);

    private static string Invariant(int value) => value.ToString(CultureInfo.InvariantCulture);

    [GeneratedRegex(@"^\s*Total:\s+([0-9.]+) secs", RegexOptions.Multiline)]
    private static partial Regex TotalLine();

    [GeneratedRegex(@"^\s*\[(\d{3})\]\s+(\d+) responses", RegexOptions.Multiline)]
    private static partial Regex StatusLine();

    [GeneratedRegex(@"^\s*\[(\d+)\]\s+\S", RegexOptions.Multiline)]
    private static partial Regex ErrorLine();
}
