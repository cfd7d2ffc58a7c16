using System.Globalization;
using Xunit.Abstractions;

namespace Orseis.IntegrationTests.Faults.Chaos;

/// <summary>
/// The chaos test of issue 46 at the user's boundary: a real ASP.NET Core app (<see cref="ChaosApp"/>) under Debian's
/// hey on a read and a write endpoint, every connection of the app ended by the server every 2 s. With retries on, no
/// read fails and none answers wrong; no write runs twice (its rows counted against the writes answered). With retries
/// off, reads fail as before: the test would notice retries silently turned off.
/// </summary>
internal static class ChaosChecks
{
    /// <summary>How long one run loads the app: <c>ORSEIS_CHAOS_SECONDS</c> when set (the soak), else <paramref name="seconds"/>.</summary>
    public static TimeSpan Duration(int seconds) =>
        TimeSpan.FromSeconds(
            Environment.GetEnvironmentVariable("ORSEIS_CHAOS_SECONDS") is { Length: > 0 } s ? int.Parse(s, CultureInfo.InvariantCulture) : seconds);

    public static async Task RetriesOn(ChaosServer server, ITestOutputHelper output)
    {
        var run = new ChaosRun(server, retries: true)
        {
            Duration = Duration(10),
            OnSample = line => output.WriteLine($"sample ({ChaosRun.SampleColumns}): {line}"),
        };
        ChaosResult result = await run.RunAsync();
        output.WriteLine("retries on\n" + result);

        Assert.True(result.Killed > 0, "no connection of the app was ever killed");
        Assert.True(result.Reads.Total > 100, $"only {result.Reads.Total} reads ran");
        Assert.Equal(0, result.Reads.Failed);
        Assert.Equal(0, result.WrongReads);
        Assert.True(result.Retries > 0, "the kills never hit a read or an open: nothing was retried");
        // Kills every 2 s are retries in separate bursts: FrequentRetries names them.
        Assert.Contains(result.Findings, f => f.Kind == Orseis.Diagnostics.FindingKind.FrequentRetries);

        // Each write carries a key of its own: a write run twice would leave its key twice.
        Assert.Equal(result.Rows, result.DistinctRows);
        Assert.Equal(result.Writes.Status(200), result.WritesAnswered);
        Assert.InRange(result.Rows, result.WritesAnswered, result.WritesAnswered + result.Writes.Failed);
    }

    public static async Task RetriesOff(ChaosServer server, ITestOutputHelper output)
    {
        ChaosResult result = await new ChaosRun(server, retries: false) { Duration = TimeSpan.FromSeconds(6) }.RunAsync();
        output.WriteLine("retries off\n" + result);

        Assert.True(result.Killed > 0, "no connection of the app was ever killed");
        Assert.True(result.Reads.Failed > 0, "no read failed with retries off: were the kills landing?");
        Assert.Equal(0, result.WrongReads);
        Assert.Equal(0, result.Retries);
        Assert.Empty(result.Findings);
        Assert.Equal(result.Rows, result.DistinctRows);
        Assert.InRange(result.Rows, result.WritesAnswered, result.WritesAnswered + result.Writes.Failed);
    }
}

[Collection(FaultCollection.Name)]
public sealed class MariaDbChaosTests(PrivateMariaDb server, ITestOutputHelper output)
{
    [ServerFaultFact("mariadb", needsHey: true)]
    public Task With_retries_no_read_fails_under_kills_and_no_write_runs_twice() =>
        ChaosChecks.RetriesOn(new MariaDbChaos(server.ConnectionString), output);

    [ServerFaultFact("mariadb", needsHey: true)]
    public Task Without_retries_reads_fail_under_kills_as_before() =>
        ChaosChecks.RetriesOff(new MariaDbChaos(server.ConnectionString), output);
}

[Collection(FaultCollection.Name)]
public sealed class PostgresChaosTests(PrivatePostgres server, ITestOutputHelper output) : IClassFixture<PrivatePostgres>
{
    [ServerFaultFact("postgres", needsHey: true)]
    public Task With_retries_no_read_fails_under_kills_and_no_write_runs_twice() =>
        ChaosChecks.RetriesOn(new PostgresChaos(server.ConnectionString), output);

    [ServerFaultFact("postgres", needsHey: true)]
    public Task Without_retries_reads_fail_under_kills_as_before() =>
        ChaosChecks.RetriesOff(new PostgresChaos(server.ConnectionString), output);
}
