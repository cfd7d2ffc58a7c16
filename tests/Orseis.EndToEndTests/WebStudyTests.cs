using System.Globalization;
using System.Text.Json;
using Orseis.Testing;
using Xunit.Abstractions;

namespace Orseis.EndToEndTests;

/// <summary>
/// The web-app study's command as docs/web-apps.md runs it, at a small scale: two rounds of 2 s per endpoint. It checks
/// that the command ran the real app and hey for every shape and strategy, in turning order, with no failed request, and
/// that each strategy got its connections as it says (open per statement, one per request held, one per request shared by
/// back-to-back calls); the throughput ratios are the study's to measure, not this test's.
/// </summary>
public sealed class WebStudyTests(ITestOutputHelper output)
{
    private static readonly string[] Strategies = ["percall", "session", "scope"];

    [WebStudyFact]
    public void Every_strategy_of_every_shape_answers_requests_without_a_failure_and_gets_connections_as_it_says()
    {
        string results = Path.Combine(Path.GetTempPath(), $"orseis-webstudy-{Environment.ProcessId}-{Guid.NewGuid():N}");
        try
        {
            ToolProcess.Result run = ToolProcess.Run(
                RepositoryRoot.Find(), ToolProcess.Dotnet(),
                [StudyDll(), "--rounds", "2", "--seconds", "2", "--max-minutes", "5", "--out", results],
                TimeSpan.FromMinutes(5));
            output.WriteLine(run.Output);
            output.WriteLine(run.Error);
            Assert.Equal(0, run.ExitCode);

            using JsonDocument json = JsonDocument.Parse(File.ReadAllText(results + ".json"));
            JsonElement root = json.RootElement;
            Assert.False(root.GetProperty("cutShort").GetBoolean());
            JsonElement[] loads = [.. root.GetProperty("loads").EnumerateArray()];
            Assert.Equal(2 * 2 * 3, loads.Length);
            foreach (string shape in new[] { "burst", "await" })
            {
                for (int round = 1; round <= 2; round++)
                {
                    // Each round runs the three strategies once, starting one further each round.
                    string[] order =
                    [
                        .. loads.Where(l => l.GetProperty("shape").GetString() == shape && l.GetProperty("round").GetInt32() == round)
                            .OrderBy(l => l.GetProperty("order").GetInt32()).Select(l => l.GetProperty("strategy").GetString()!),
                    ];
                    Assert.Equal([.. Strategies.Skip(round - 1), .. Strategies.Take(round - 1)], order);
                }
            }

            foreach (JsonElement load in loads)
            {
                string what = $"{load.GetProperty("shape").GetString()}/{load.GetProperty("strategy").GetString()}, round {load.GetProperty("round").GetInt32()}";
                Assert.True(load.GetProperty("answered").GetInt64() > 0, $"{what}: no request answered");
                Assert.True(load.GetProperty("requestsPerSecond").GetDouble() > 0, $"{what}: no requests per second");
                Assert.True(load.GetProperty("failed").GetInt64() == 0, $"{what}: {load.GetProperty("failed").GetInt64()} failed requests");
            }

            // Open per call opens a connection per statement (5 and 2); a session one per request; a scope one per request
            // when its calls come back to back, with the other four calls on the parked connection.
            Assert.InRange(Median(root, "burst", "percall", "opensPerRequest"), 4.9, 5.1);
            Assert.InRange(Median(root, "await", "percall", "opensPerRequest"), 1.9, 2.1);
            Assert.InRange(Median(root, "burst", "session", "opensPerRequest"), 0.95, 1.05);
            Assert.InRange(Median(root, "await", "session", "opensPerRequest"), 0.95, 1.05);
            Assert.InRange(Median(root, "burst", "scope", "opensPerRequest"), 0.95, 2.5);
            Assert.InRange(Median(root, "burst", "scope", "reusesPerRequest"), 2.5, 4.05);

            // The markdown file carries the same: a table per shape with a row per strategy, and the three ratios.
            string markdown = File.ReadAllText(results + ".md");
            Assert.Contains("## burst: 5 statements back to back; 32 clients, Max Pool Size 100", markdown, StringComparison.Ordinal);
            Assert.Contains("## await: 2 statements with `await Task.Delay(20)` between two; 64 clients, Max Pool Size 16", markdown, StringComparison.Ordinal);
            foreach (string ratio in new[] { "scope / percall", "scope / session", "session / percall" })
                Assert.Equal(2, markdown.Split('\n').Count(l => l.StartsWith($"| {ratio} | ", StringComparison.Ordinal)));
        }
        finally
        {
            File.Delete(results + ".md");
            File.Delete(results + ".json");
        }
    }

    /// <summary>The median over rounds of <paramref name="field"/> in the summary of one shape's strategy.</summary>
    private static double Median(JsonElement root, string shape, string strategy, string field)
    {
        JsonElement summary = root.GetProperty("shapes").EnumerateArray().Single(s => s.GetProperty("shape").GetString() == shape);
        JsonElement row = summary.GetProperty("strategies").EnumerateArray().Single(s => s.GetProperty("strategy").GetString() == strategy);
        double median = row.GetProperty(field).GetProperty("median").GetDouble();
        return double.IsFinite(median) ? median : throw new InvalidDataException($"{shape}/{strategy}: {field} is {median.ToString(CultureInfo.InvariantCulture)}");
    }

    /// <summary>The study built in this test's configuration; built here when the solution build did not build it.</summary>
    private static string StudyDll()
    {
        try
        {
            return BuiltProgram.Dll("benchmarks", "Orseis.WebStudy");
        }
        catch (FileNotFoundException)
        {
            string configuration = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar)).Parent!.Name;
            ToolProcess.Result build = ToolProcess.Run(
                RepositoryRoot.Find(), ToolProcess.Dotnet(), ["build", "benchmarks/Orseis.WebStudy", "-c", configuration, "--nologo", "-v", "q"],
                TimeSpan.FromMinutes(5));
            Assert.True(build.ExitCode == 0, "building benchmarks/Orseis.WebStudy failed: " + build.Output + build.Error);
            return BuiltProgram.Dll("benchmarks", "Orseis.WebStudy");
        }
    }
}

/// <summary>Needs a MariaDB (ORSEIS_MYSQL): skipped, saying why, without it, except in CI where test.sh starts one.</summary>
public sealed class WebStudyFactAttribute : FactAttribute
{
    public WebStudyFactAttribute()
    {
        if (!StudyTools.InCi && string.IsNullOrEmpty(Environment.GetEnvironmentVariable("ORSEIS_MYSQL")))
            Skip = "The web-app study needs ORSEIS_MYSQL (a MariaDB connection string); ./scripts/test.sh starts a private MariaDB and sets it.";
    }
}
