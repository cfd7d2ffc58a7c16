using System.Diagnostics;
using System.Globalization;

namespace Orseis.Scenarios.ColdStart;

/// <summary>
/// One burst of requests fired by Debian's <c>hey</c> (<c>hey -n R -c C -t 0 -o csv URL</c>): every request's time and
/// status as hey reports them. A request that got no answer at all is absent from hey's CSV and counted as unanswered.
/// </summary>
internal sealed record HeyBurst(int Sent, IReadOnlyList<double> Seconds, IReadOnlyDictionary<int, int> Statuses)
{
    /// <summary>Requests answered 200.</summary>
    public int Ok => Statuses.GetValueOrDefault(200);

    /// <summary>Requests answered with another status, or not answered.</summary>
    public int Failed => Sent - Ok;

    /// <summary>The p-th percentile (0..100) of the answered requests' times, nearest rank; NaN when none was answered.</summary>
    public double Percentile(double p)
    {
        if (Seconds.Count == 0)
            return double.NaN;
        double[] sorted = [.. Seconds.Order()];
        int rank = (int)Math.Ceiling(p / 100 * sorted.Length);
        return sorted[Math.Clamp(rank - 1, 0, sorted.Length - 1)];
    }

    /// <summary>Reads hey's CSV (header <c>response-time,...,status-code,offset</c>).</summary>
    public static HeyBurst Parse(string csv, int sent)
    {
        string[] lines = csv.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        if (lines.Length == 0 || !lines[0].StartsWith("response-time,", StringComparison.Ordinal))
            throw new InvalidDataException($"hey printed no CSV header: '{(lines.Length == 0 ? "" : lines[0])}'.");
        string[] header = lines[0].Split(',');
        int time = Array.IndexOf(header, "response-time"), status = Array.IndexOf(header, "status-code");
        if (status < 0)
            throw new InvalidDataException($"hey's CSV has no status-code column: '{lines[0]}'.");
        var seconds = new List<double>();
        var statuses = new Dictionary<int, int>();
        foreach (string line in lines.Skip(1))
        {
            string[] cells = line.Split(',');
            if (cells.Length != header.Length)
                throw new InvalidDataException($"hey's CSV line has {cells.Length} cells, not {header.Length}: '{line}'.");
            seconds.Add(double.Parse(cells[time], CultureInfo.InvariantCulture));
            int code = int.Parse(cells[status], CultureInfo.InvariantCulture);
            statuses[code] = statuses.GetValueOrDefault(code) + 1;
        }

        return new HeyBurst(sent, seconds, statuses);
    }

    /// <summary>Fires <paramref name="requests"/> requests, <paramref name="concurrency"/> at a time, with no client timeout;
    /// gives up (killing hey) after <paramref name="limit"/>.</summary>
    public static async Task<HeyBurst> FireAsync(Uri url, int requests, int concurrency, TimeSpan limit)
    {
        var start = new ProcessStartInfo("hey") { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string arg in new[] { "-n", requests.ToString(CultureInfo.InvariantCulture), "-c", concurrency.ToString(CultureInfo.InvariantCulture), "-t", "0", "-o", "csv", url.ToString() })
            start.ArgumentList.Add(arg);
        Process hey;
        try
        {
            hey = Process.Start(start)!;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            throw new ScenarioSetupException("hey is not installed: apt-get install hey (Debian's HTTP load generator).");
        }

        using (hey)
        {
            Task<string> output = hey.StandardOutput.ReadToEndAsync();
            Task<string> errors = hey.StandardError.ReadToEndAsync();
            using var timeout = new CancellationTokenSource(limit);
            try
            {
                await hey.WaitForExitAsync(timeout.Token);
            }
            catch (OperationCanceledException)
            {
                hey.Kill(entireProcessTree: true);
                throw new TimeoutException($"hey did not finish {requests} requests within {limit.TotalSeconds:0} s.");
            }

            if (hey.ExitCode != 0)
                throw new InvalidOperationException($"hey failed with exit code {hey.ExitCode}: {await errors}");
            return Parse(await output, requests);
        }
    }
}
