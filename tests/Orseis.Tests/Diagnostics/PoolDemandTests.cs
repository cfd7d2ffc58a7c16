using Orseis.Diagnostics;

namespace Orseis.Tests.Diagnostics;

/// <summary>
/// The demand an open sees (connections taken plus callers inside Open, itself included) is one instant's: never more
/// callers than there are. Read in two steps, a caller's demand counted a caller whose open completed between them twice
/// (inside Open in the first read, holding a connection in the second): 170 callers were once "175 wanting a connection"
/// against Max Pool Size 170, a false Saturation (issue 45). The interleaving needs a thread preempted between two
/// instructions, which no test can force: the stress test guards the invariant (the two-step reading passed it too in three
/// tries), docs/results/diagnostics/saturation-2026-11-30e.md measures the race in the scenario that showed it.
/// </summary>
public sealed class PoolDemandTests
{
    [Fact]
    public void Demand_never_counts_more_callers_than_there_are()
    {
        const int Callers = 128;
        using var telemetry = new PoolTelemetry(
            "demand-" + Guid.NewGuid().ToString("N"), "sqlite", Callers, new DiagnosticsOptions { Detectors = FindingKind.Saturation });
        long most = 0;
        long opens = 0;
        var until = DateTime.UtcNow + TimeSpan.FromSeconds(1);
        Thread[] threads = [.. Enumerable.Range(0, Callers).Select(_ => new Thread(() =>
        {
            using var connection = new Microsoft.Data.Sqlite.SqliteConnection();
            int mine = 0;
            long n = 0;
            while (DateTime.UtcNow < until)
            {
                for (int i = 0; i < 100; i++, n++)
                {
                    OpenStart open = telemetry.OpenStarting(async: false);
                    mine = Math.Max(mine, open.Demand);
                    Thread.SpinWait(50); // the provider's open
                    int hold = telemetry.Acquired(connection, "test", openedAt: telemetry.OpenCompleted(open, connection));
                    Thread.SpinWait(200); // the call
                    telemetry.Released(connection, hold);
                }
            }

            Peaks.Raise(ref most, mine);
            Interlocked.Add(ref opens, n);
        }))];
        foreach (Thread t in threads)
            t.Start();
        foreach (Thread t in threads)
            t.Join();

        Assert.True(opens > 10_000, $"only {opens} opens ran");
        Assert.InRange(most, 1, Callers);
        Assert.Equal(0, telemetry.InUse);
        Assert.Equal(0, telemetry.Pending);
    }

    [Fact]
    public void The_taken_and_pending_counts_share_a_word_without_touching()
    {
        using var telemetry = new PoolTelemetry(
            "demand-" + Guid.NewGuid().ToString("N"), "sqlite", 4, new DiagnosticsOptions { Detectors = FindingKind.Saturation });
        Microsoft.Data.Sqlite.SqliteConnection[] connections = [.. Enumerable.Range(0, 4).Select(_ => new Microsoft.Data.Sqlite.SqliteConnection())];
        OpenStart[] opens = [.. Enumerable.Range(0, 6).Select(_ => telemetry.OpenStarting(async: true))];
        Assert.Equal([1, 2, 3, 4, 5, 6], opens.Select(o => o.Demand));
        Assert.All(opens, o => Assert.Equal(0, o.InUse));
        int[] holds = [.. opens.Take(4).Select((o, i) => telemetry.Acquired(connections[i], "test", openedAt: telemetry.OpenCompleted(o, connections[i])))];
        Assert.Equal(4, telemetry.InUse);
        Assert.Equal(2, telemetry.Pending);

        // The seventh caller: four held, two others and itself inside Open; three more than the pool's four can wait.
        OpenStart seventh = telemetry.OpenStarting(async: true);
        Assert.Equal((4, 7), (seventh.InUse, seventh.Demand));
        Assert.True(seventh.Queued(4));
        for (int i = 0; i < 4; i++)
            telemetry.Released(connections[i], holds[i]);
        foreach (OpenStart o in opens.Skip(4).Append(seventh))
            telemetry.OpenCompleted(o);
        Assert.Equal((0, 0), (telemetry.InUse, telemetry.Pending));
        Assert.False(telemetry.OpenStarting(async: true).Queued(4));
        foreach (Microsoft.Data.Sqlite.SqliteConnection c in connections)
            c.Dispose();
    }
}
