using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;

namespace Orseis.IntegrationTests.Faults.Chaos;

/// <summary>What Debian's <c>hey</c> reported of one load: responses by status, transport errors, the p99.</summary>
internal sealed partial record HeyResult(IReadOnlyDictionary<int, int> ByStatus, int Errors, double P99Seconds, string Output)
{
    public int Total => ByStatus.Values.Sum() + Errors;

    public int Status(int code) => ByStatus.TryGetValue(code, out int n) ? n : 0;

    /// <summary>Responses other than 200, and requests that got no response at all.</summary>
    public int Failed => Total - Status(200);

    /// <summary>Runs <c>hey -z</c> for <paramref name="duration"/> with <paramref name="clients"/> clients on <paramref name="url"/>.</summary>
    public static async Task<HeyResult> RunAsync(string url, TimeSpan duration, int clients, string method = "GET")
    {
        var start = new ProcessStartInfo("hey") { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string arg in new[] { "-z", $"{(int)duration.TotalSeconds}s", "-c", $"{clients}", "-t", "30", "-m", method, url })
            start.ArgumentList.Add(arg);
        using Process process = Process.Start(start)!;
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> errors = process.StandardError.ReadToEndAsync();
        using var limit = new CancellationTokenSource(duration + TimeSpan.FromSeconds(60));
        await process.WaitForExitAsync(limit.Token);
        string text = await output;
        if (process.ExitCode != 0)
            throw new InvalidOperationException($"hey failed with exit code {process.ExitCode}: {await errors}");
        return Parse(text);
    }

    public static HeyResult Parse(string output)
    {
        var byStatus = new Dictionary<int, int>();
        int errors = 0;
        string? section = null;
        double p99 = double.NaN;
        foreach (string line in output.Split('\n'))
        {
            if (line.StartsWith("Status code distribution", StringComparison.Ordinal))
                section = "status";
            else if (line.StartsWith("Error distribution", StringComparison.Ordinal))
                section = "errors";
            else if (Count().Match(line) is { Success: true } m && section == "status")
                byStatus[int.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture)] = int.Parse(m.Groups[2].Value, CultureInfo.InvariantCulture);
            else if (Count().Match(line) is { Success: true } e && section == "errors")
                errors += int.Parse(e.Groups[1].Value, CultureInfo.InvariantCulture);
            else if (P99().Match(line) is { Success: true } p)
                p99 = double.Parse(p.Groups[1].Value, CultureInfo.InvariantCulture);
        }

        return new HeyResult(byStatus, errors, p99, output);
    }

    [GeneratedRegex(@"^\s*\[(\d+)\]\s+(\d+)?")]
    private static partial Regex Count();

    [GeneratedRegex(@"^\s*99% in ([0-9.]+) secs")]
    private static partial Regex P99();
}
