using System.Collections.Concurrent;
using Orseis.Trace;

namespace Orseis.EndToEndTests;

/// <summary>
/// Starts the PoolWatch sample as a separate process and reads the Orseis meter from outside, over EventPipe, the way
/// dotnet-counters does. Tolerances are wide: the machine may be small and busy; what must hold is the shape
/// (open-per-call opens at about the call rate, reuse opens at about zero).
/// </summary>
public sealed class OutOfProcessMetricsTests
{
    private const int Rate = 40;

    [Fact]
    public void Open_per_call_load_shows_opens_per_second_near_the_call_rate()
    {
        (List<double> opens, List<double> commands, List<double> perCommand) = Watch("OpenPerCall");

        double medianOpens = Median(opens);
        Assert.InRange(medianOpens, Rate * 0.4, Rate * 1.6);
        Assert.InRange(Median(commands), Rate * 0.4, Rate * 1.6);
        Assert.All(perCommand, v => Assert.InRange(v, 0.95, 1.05));
    }

    [Fact]
    public void Reuse_connection_load_shows_near_zero_opens_while_commands_run()
    {
        (List<double> opens, List<double> commands, List<double> perCommand) = Watch("ReuseConnection");

        Assert.InRange(Median(commands), Rate * 0.4, Rate * 1.6);
        // A counter is published only once it has a measurement in the session: the one open happened before we
        // attached, so no value at all is the expected zero.
        Assert.InRange(opens.Count == 0 ? 0 : Median(opens), 0, 1);
        Assert.InRange(perCommand.Last(), 0, 0.1);
    }

    [Fact]
    public void Units_of_work_in_connection_scopes_show_one_open_and_the_rest_reused()
    {
        // Ticks of five back-to-back calls, each in a scope: one open per tick, four calls on the parked connection.
        var values = new ConcurrentQueue<MetricValue>();
        (List<double> opens, List<double> commands, _) = Watch("OpenPerCall", values, rate: Rate / 5, "--unit", "5", "--scope");
        List<double> reuses = [.. values.Where(v => v.Instrument == "orseis.scope.reuses").Select(v => v.Value).Skip(1)];

        double perSecond = Median(commands);
        Assert.InRange(perSecond, Rate * 0.4, Rate * 1.6);
        Assert.InRange(Median(opens) / perSecond, 0.1, 0.3);
        Assert.InRange(Median(reuses) / perSecond, 0.7, 0.9);
    }

    /// <summary>Runs the sample in <paramref name="mode"/> and collects a few seconds of per-second values.</summary>
    private static (List<double> Opens, List<double> Commands, List<double> OpensPerCommand) Watch(
        string mode, ConcurrentQueue<MetricValue>? values = null, int rate = Rate, params string[] more)
    {
        using PoolWatchProcess sample = PoolWatchProcess.Start([
            "--rate", rate.ToString(System.Globalization.CultureInfo.InvariantCulture), "--concurrency", "2", "--mode", mode,
            "--duration", "45", "--report", "0", .. more]);
        values ??= new ConcurrentQueue<MetricValue>();
        using (var session = new OrseisTraceSession(sample.Id, TimeSpan.FromSeconds(1)))
        {
            session.Metric += m =>
            {
                if (m.Tags.Contains("db.client.connection.pool.name=poolwatch", StringComparison.Ordinal))
                    values.Enqueue(m);
            };
            // Up to 25 s for 6 values of the commands rate (the first ones may cover a partial interval).
            var deadline = DateTime.UtcNow.AddSeconds(25);
            while (DateTime.UtcNow < deadline && values.Count(v => v.Instrument == "orseis.commands") < 6)
                Thread.Sleep(250);
        }

        List<double> Of(string instrument) => values.Where(v => v.Instrument == instrument && !double.IsNaN(v.Value)).Select(v => v.Value).ToList();
        List<double> commands = Of("orseis.commands");
        Assert.True(commands.Count >= 4, $"only {commands.Count} values of orseis.commands arrived from the sample");
        // Skip the first interval: it may have started mid-way.
        return ([.. Of("orseis.connection.opens").Skip(1)], [.. commands.Skip(1)], Of("orseis.connection.opens_per_command"));
    }

    private static double Median(List<double> values)
    {
        Assert.NotEmpty(values);
        List<double> sorted = [.. values.Order()];
        return sorted[sorted.Count / 2];
    }
}
