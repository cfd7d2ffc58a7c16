using System.Diagnostics;
using Orseis.Testing;

namespace Orseis.EndToEndTests;

/// <summary>
/// The fleet sample's Prometheus rules (samples/Orseis.Samples.Fleet/prometheus/orseis-rules.yml) are valid and do
/// what their unit tests (orseis-rules.test.yml) say, as Debian's promtool checks them: saturation, timeouts,
/// starvation, and fleet-wide connections against the configured server limit.
/// </summary>
public sealed class FleetRulesTests
{
    public static string RulesFolder => Path.Combine(RepositoryRoot.Find(), "samples", "Orseis.Samples.Fleet", "prometheus");

    [PromtoolFact]
    public void Promtool_checks_the_rules_and_passes_their_unit_tests()
    {
        (int check, string checkOutput) = Promtool(RulesFolder, "check", "rules", "orseis-rules.yml");
        Assert.True(check == 0, checkOutput);
        Assert.Contains("SUCCESS: 11 rules found", checkOutput, StringComparison.Ordinal);

        (int test, string testOutput) = Promtool(RulesFolder, "test", "rules", "orseis-rules.test.yml");
        Assert.True(test == 0, testOutput);
        Assert.Contains("SUCCESS", testOutput, StringComparison.Ordinal);
    }

    [PromtoolFact]
    public void A_wrong_expectation_fails_promtool_so_the_test_above_can_fail()
    {
        string folder = Directory.CreateTempSubdirectory("orseis-rules-").FullName;
        try
        {
            File.Copy(Path.Combine(RulesFolder, "orseis-rules.yml"), Path.Combine(folder, "orseis-rules.yml"));
            string tests = File.ReadAllText(Path.Combine(RulesFolder, "orseis-rules.test.yml"));
            Assert.Contains("value: 125", tests, StringComparison.Ordinal);
            File.WriteAllText(Path.Combine(folder, "wrong.test.yml"), tests.Replace("value: 125", "value: 250", StringComparison.Ordinal));
            (int code, string output) = Promtool(folder, "test", "rules", "wrong.test.yml");
            Assert.NotEqual(0, code);
            Assert.Contains("fleet:db_connections:sum", output, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    private static (int Code, string Output) Promtool(string folder, params string[] args)
    {
        var info = new ProcessStartInfo("promtool")
        {
            WorkingDirectory = folder,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (string arg in args)
            info.ArgumentList.Add(arg);
        using Process process = Process.Start(info) ?? throw new InvalidOperationException("could not start promtool");
        Task<string> stdout = process.StandardOutput.ReadToEndAsync();
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(30_000))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException("promtool did not finish within 30 s");
        }

        return (process.ExitCode, stdout.Result + stderr.Result);
    }
}
