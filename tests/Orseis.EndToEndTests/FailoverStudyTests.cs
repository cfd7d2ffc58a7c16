using System.Globalization;
using Orseis.Testing;
using Xunit.Abstractions;

namespace Orseis.EndToEndTests;

/// <summary>
/// The failover study's command as docs/failover.md runs it, at a small scale: hey keeps the SlowApp sample (its own
/// process) under load while the command's own MariaDB is stopped and started again, and the table says what the
/// clients saw.
/// </summary>
public sealed class FailoverStudyTests(ITestOutputHelper output)
{
    [MariaDbServerWithHeyFact]
    public void Requests_fail_clearly_while_the_server_is_down_and_succeed_again_once_it_is_back()
    {
        ToolProcess.Result run = ToolProcess.Run(
            RepositoryRoot.Find(), ToolProcess.Dotnet(),
            [
                BuiltProgram.Dll("benchmarks", "Orseis.Scenarios"), "failover", "--concurrency", "10", "--rate", "20", "--seconds", "20",
                "--at", "3", "--down", "1", "--configs", "mysqlconnector:async,mysql-data:async:64",
                "--app", BuiltProgram.Dll("samples", "Orseis.Samples.SlowApp"),
            ],
            TimeSpan.FromMinutes(4));
        output.WriteLine(run.Output);
        output.WriteLine(run.Error);
        Assert.Equal(0, run.ExitCode);

        string[] rows = [.. run.Output.Split('\n').Where(l => l.StartsWith("| MySql", StringComparison.Ordinal))];
        Assert.Equal(2, rows.Length);
        foreach (string row in rows)
        {
            string[] cells = [.. row.Split('|').Select(c => c.Trim())];
            Assert.True(Number(cells[2]) > 20, $"too little load before the stop to see anything: {row}");
            Assert.True(Number(cells[5]) > 0, $"no request failed, so the restart went unnoticed and this test proved nothing: {row}");
            Assert.InRange(Number(cells[7]), 0, 3); // the last failure came within 3 s of the server answering again
            Assert.InRange(Number(cells[9]), 0, 0.5); // and 5 s after it, requests are as quick as before
            foreach (string failure in cells[10].Split("; "))
                Assert.True(Clear(failure), $"an unclear error reached the app: {failure}");
        }

        Assert.Contains("second by second", run.Output, StringComparison.Ordinal);
    }

    /// <summary>A cell's median; "-" (no request 5 s after the server was back: it took too long to restart) fails.</summary>
    private static double Number(string cell) =>
        double.TryParse(cell.Split(' ')[0], CultureInfo.InvariantCulture, out double value)
            ? value
            : throw new Xunit.Sdk.XunitException($"no value in '{cell}': the server may have taken too long to come back");

    /// <summary>What a user can act on: the provider's word that it could not connect, or Orseis' that the connection broke.</summary>
    private static bool Clear(string failure) =>
        failure.StartsWith("MySqlException: Unable to connect", StringComparison.Ordinal) ||
        failure.StartsWith("ConnectionBrokenException:", StringComparison.Ordinal) ||
        failure.StartsWith("MySqlException: Connect Timeout expired", StringComparison.Ordinal);
}
