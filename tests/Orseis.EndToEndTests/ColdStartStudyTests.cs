using Orseis.Testing;
using Xunit.Abstractions;

namespace Orseis.EndToEndTests;

/// <summary>
/// The cold-start study's command as docs/cold-start.md runs it, at a small scale: hey fires bursts at the SlowApp sample
/// (its own process) over a real MariaDB, and the table says what the clients saw and what Orseis' detectors said.
/// </summary>
public sealed class ColdStartStudyTests(ITestOutputHelper output)
{
    [MariaDbWithHeyFact]
    public void A_burst_above_the_pool_size_queues_and_is_named_saturation_and_every_request_is_answered()
    {
        // 24 requests at once, each holding a connection 0.4 s, against Max Pool Size 8: three waves, 16 callers queue.
        ToolProcess.Result run = ToolProcess.Run(
            RepositoryRoot.Find(), ToolProcess.Dotnet(),
            [
                BuiltProgram.Dll("benchmarks", "Orseis.Scenarios"), "coldstart", "--requests", "24", "--concurrency", "24", "--sleep", "0.4",
                "--max-pool", "8", "--configs", "mysqlconnector:async,mysql-data:async:64",
                "--app", BuiltProgram.Dll("samples", "Orseis.Samples.SlowApp"),
            ],
            TimeSpan.FromMinutes(3));
        output.WriteLine(run.Output);
        output.WriteLine(run.Error);
        Assert.Equal(0, run.ExitCode);

        string[] rows = [.. run.Output.Split('\n').Where(l => l.StartsWith("| MySql", StringComparison.Ordinal))];
        Assert.Equal(4, rows.Length);
        foreach (string row in rows)
        {
            string[] cells = [.. row.Split('|').Select(c => c.Trim())];
            Assert.Equal("24/24", cells[3]); // every request answered 200
            Assert.Equal("none", cells[8]); // no failure
            double p50 = double.Parse(cells[4], System.Globalization.CultureInfo.InvariantCulture);
            double slowest = double.Parse(cells[6], System.Globalization.CultureInfo.InvariantCulture);
            Assert.InRange(p50, 0.4, 30);
            // The third wave waited for two before it: 1.2 s, as hey prints it (two decimals, so 1.195 s shows as 1.20; the
            // double 3 * 0.4 is 1.2000000000000002, which a run printed as exactly 1.20 once failed).
            Assert.InRange(slowest, 1.195, 60);
        }

        // The cold burst of each app queued for its 8 connections: the saturation detector says so.
        Assert.All(rows.Where(r => r.Contains("| cold |", StringComparison.Ordinal)), r => Assert.Contains("Saturation 1/1", r, StringComparison.Ordinal));
        Assert.Contains("**Saturation**: Callers queue for connections of pool 'slowapp'", run.Output, StringComparison.Ordinal);
    }
}
