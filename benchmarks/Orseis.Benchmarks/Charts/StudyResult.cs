using System.Text.Json;

namespace Orseis.Benchmarks.Charts;

/// <summary>One measured study case read back from BenchmarkDotNet's brief JSON report.</summary>
/// <param name="Family">"Orseis" (RatioStudy*) or "ADO.NET" (RawAdoStudy*).</param>
/// <param name="Provider">The Provider parameter.</param>
/// <param name="Method">The benchmark method (Reuse, OpenPerCall, ...).</param>
/// <param name="N">The N parameter.</param>
/// <param name="MeanNs">Mean time of one call (N queries), in nanoseconds.</param>
public sealed record StudyResult(string Family, string Provider, string Method, int N, double MeanNs)
{
    /// <summary>Reads every study case from the <c>*-report-brief.json</c> files in <paramref name="directory"/>.</summary>
    public static IEnumerable<StudyResult> ReadDirectory(string directory)
    {
        foreach (string file in Directory.EnumerateFiles(directory, "*-report-brief.json"))
        {
            using JsonDocument document = JsonDocument.Parse(File.ReadAllText(file));
            foreach (JsonElement benchmark in document.RootElement.GetProperty("Benchmarks").EnumerateArray())
            {
                string type = benchmark.GetProperty("Type").GetString() ?? "";
                string? family = type.StartsWith("RatioStudy", StringComparison.Ordinal) ? "Orseis"
                    : type.StartsWith("RawAdoStudy", StringComparison.Ordinal) ? "ADO.NET" : null;
                if (family is null || !benchmark.TryGetProperty("Statistics", out JsonElement stats) || stats.ValueKind != JsonValueKind.Object)
                    continue;
                Dictionary<string, string> parameters = (benchmark.GetProperty("Parameters").GetString() ?? "")
                    .Split('&', StringSplitOptions.RemoveEmptyEntries)
                    .Select(p => p.Split('=', 2))
                    .ToDictionary(p => p[0], p => p.Length > 1 ? p[1] : "");
                yield return new StudyResult(
                    family,
                    parameters.GetValueOrDefault("Provider", "?"),
                    benchmark.GetProperty("Method").GetString() ?? "",
                    int.Parse(parameters["N"], System.Globalization.CultureInfo.InvariantCulture),
                    stats.GetProperty("Mean").GetDouble());
            }
        }
    }
}
