using System.Globalization;

namespace Orseis.Scenarios.ColdStart;

/// <summary>One request as hey reports it: when it started (seconds after hey began), how long it took, its status.</summary>
internal readonly record struct HeyRequest(double Offset, double Seconds, int Status);

/// <summary>
/// Requests fired by Debian's <c>hey</c> (<c>-o csv</c>): every request's start, time and status as hey reports them. A
/// request that got no answer at all is absent from hey's CSV and counted as unanswered.
/// </summary>
internal sealed record HeyBurst(int Sent, IReadOnlyList<HeyRequest> Requests)
{
    /// <summary>Requests answered 200.</summary>
    public int Ok => Requests.Count(r => r.Status == 200);

    /// <summary>The p-th percentile (0..100) of the answered requests' times, nearest rank; NaN when none was answered.</summary>
    public double Percentile(double p) => Percentile(Requests.Select(r => r.Seconds), p);

    /// <summary>The p-th percentile (0..100) of <paramref name="values"/>, nearest rank; NaN when there are none.</summary>
    public static double Percentile(IEnumerable<double> values, double p)
    {
        double[] sorted = [.. values.Order()];
        if (sorted.Length == 0)
            return double.NaN;
        int rank = (int)Math.Ceiling(p / 100 * sorted.Length);
        return sorted[Math.Clamp(rank - 1, 0, sorted.Length - 1)];
    }

    /// <summary>Reads hey's CSV (header <c>response-time,...,status-code,offset</c>); <paramref name="sent"/> null counts its rows.</summary>
    public static HeyBurst Parse(string csv, int? sent)
    {
        string[] lines = csv.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        if (lines.Length == 0 || !lines[0].StartsWith("response-time,", StringComparison.Ordinal))
            throw new InvalidDataException($"hey printed no CSV header: '{(lines.Length == 0 ? "" : lines[0])}'.");
        string[] header = lines[0].Split(',');
        int time = Array.IndexOf(header, "response-time"), status = Array.IndexOf(header, "status-code"), offset = Array.IndexOf(header, "offset");
        if (status < 0 || offset < 0)
            throw new InvalidDataException($"hey's CSV has no status-code or offset column: '{lines[0]}'.");
        var requests = new List<HeyRequest>(lines.Length - 1);
        foreach (string line in lines.Skip(1))
        {
            string[] cells = line.Split(',');
            if (cells.Length != header.Length)
                throw new InvalidDataException($"hey's CSV line has {cells.Length} cells, not {header.Length}: '{line}'.");
            requests.Add(new HeyRequest(
                double.Parse(cells[offset], CultureInfo.InvariantCulture),
                double.Parse(cells[time], CultureInfo.InvariantCulture),
                int.Parse(cells[status], CultureInfo.InvariantCulture)));
        }

        return new HeyBurst(sent ?? requests.Count, requests);
    }

    /// <summary>Fires <paramref name="requests"/> requests, <paramref name="concurrency"/> at a time, with no client timeout;
    /// gives up (killing hey) after <paramref name="limit"/>.</summary>
    public static Task<HeyBurst> FireAsync(Uri url, int requests, int concurrency, TimeSpan limit) =>
        RunAsync(["-n", Invariant(requests), "-c", Invariant(concurrency), "-t", "0", "-o", "csv", url.ToString()], requests, limit);

    /// <summary>
    /// Sends requests for <paramref name="duration"/> (whole seconds) from <paramref name="concurrency"/> workers, each at
    /// most <paramref name="perWorkerRate"/> a second, each request timed out by hey after <paramref name="timeout"/>
    /// (whole seconds); gives up (killing hey) after the duration and a minute more.
    /// </summary>
    public static Task<HeyBurst> SustainAsync(Uri url, TimeSpan duration, int concurrency, int perWorkerRate, TimeSpan timeout) =>
        RunAsync(
            ["-z", Invariant((int)duration.TotalSeconds) + "s", "-c", Invariant(concurrency), "-q", Invariant(perWorkerRate),
             "-t", Invariant((int)timeout.TotalSeconds), "-o", "csv", url.ToString()],
            null, duration + TimeSpan.FromMinutes(1));

    private static async Task<HeyBurst> RunAsync(string[] args, int? sent, TimeSpan limit)
    {
        return Parse(await HeyProcess.RunAsync(args, limit), sent);
    }

    private static string Invariant(int value) => value.ToString(CultureInfo.InvariantCulture);
}
