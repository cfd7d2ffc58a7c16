using Orseis.Scenarios;

namespace Orseis.Benchmarks.Tests;

/// <summary>The scenario suite's time to detect: first arrivals per run, medians and maxima per scenario and per kind,
/// missed runs never counted as times, the run beside the CPU hog kept apart.</summary>
public sealed class TimeToDetectTests
{
    private static Dictionary<string, double[]> Run(params (string Kind, double[] Times)[] arrivals) =>
        arrivals.ToDictionary(a => a.Kind, a => a.Times);

    [Fact]
    public void A_runs_time_is_the_first_arrival_of_the_kind_and_none_when_it_never_arrived()
    {
        Dictionary<string, double[]> run = Run(("Churn", [0.9, 0.4, 5.4]), ("PoolSize", []));

        Assert.Equal(0.4, TimeToDetect.First(run, "Churn"));
        Assert.Null(TimeToDetect.First(run, "PoolSize"));
        Assert.Null(TimeToDetect.First(run, "Saturation"));
        Assert.Null(TimeToDetect.First(null, "Churn"));
    }

    [Fact]
    public void The_median_is_the_middle_value_or_the_mean_of_the_middle_two()
    {
        Assert.Equal(2, TimeToDetect.Median([3, 1, 2]));
        Assert.Equal(2.5, TimeToDetect.Median([4, 1, 3, 2]));
        ArgumentException error = Assert.Throws<ArgumentException>(() => TimeToDetect.Median([]));
        Assert.Contains("no value", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Each_expected_kind_gets_a_row_with_missed_runs_counted_apart_and_the_hog_run_kept_out_of_median_and_max()
    {
        var saturation = new TimeToDetect.Scenario(
            "saturation-burst", "load start", ["Saturation", "PoolSize"],
            [Run(("Saturation", [0.3]), ("PoolSize", [1.2])), Run(("Saturation", [0.5])), Run(("Saturation", [0.1]), ("PoolSize", [1.6])), Run(("Saturation", [-0.05, 0.2]))],
            Run(("Saturation", [9.0]), ("PoolSize", [9.5])));
        var clean = new TimeToDetect.Scenario("session-loop", "load start", [], [Run(("Churn", [0.2]))], null);

        IReadOnlyList<TimeToDetect.Row> rows = TimeToDetect.PerScenario([saturation, clean]);

        Assert.Equal(["Saturation", "PoolSize"], rows.Select(r => r.Kind));
        TimeToDetect.Row sat = rows[0], size = rows[1];
        Assert.Equal(0.3, sat.Median); // the run whose first arrival came before the onset is no time, nor is its later one
        Assert.Equal(0.5, sat.Max);
        Assert.Equal(0, sat.Missed);
        Assert.Equal(1, sat.Early);
        Assert.Equal(9.0, sat.Hog);
        Assert.Equal(1.4, size.Median!.Value, 9);
        Assert.Equal(1.6, size.Max);
        Assert.Equal(2, size.Missed);
        Assert.True(size.HogRun);
    }

    [Fact]
    public void A_kind_is_summed_over_every_run_of_every_scenario_and_within_only_when_no_run_missed_or_passed_the_limit()
    {
        TimeToDetect.Row[] rows =
        [
            new("a", "load start", "Churn", [0.1, 0.2, 0.3], 0, 0.4, true),
            new("b", "load start", "Churn", [2.0], 0, 3.0, true),
            new("c", "load start", "PoolTimeout", [0.5, 0.6], 1, null, true),
            new("d", "load start", "Saturation", [2.01], 0, null, false),
            new("e", "load start", "Churn", [0.3], 0, 0.4, true, Early: 1),
        ];

        IReadOnlyList<TimeToDetect.KindRow> kinds = TimeToDetect.PerKind(rows);

        TimeToDetect.KindRow churn = kinds[0];
        Assert.Equal(["a", "b", "e"], churn.Scenarios);
        Assert.Equal(0.3, churn.Median!.Value, 9); // over the five timed runs, not the median of the scenarios' medians
        Assert.Equal(2.0, churn.Max);
        Assert.Equal(3.0, churn.HogMax);
        Assert.Equal(1, churn.Early);
        Assert.False(churn.Within(2)); // a run found it before its onset: its time to detect is unknown
        Assert.True((churn with { Early = 0 }).Within(2)); // exactly at the limit is within it
        Assert.False(kinds[1].Within(2)); // one run missed
        Assert.Equal(1, kinds[1].HogMissed);
        Assert.False(kinds[2].Within(2));
        Assert.Equal(0, kinds[2].HogMissed); // no hog run: not a miss
    }

    [Fact]
    public void The_markdown_gives_a_row_per_scenario_and_kind_then_a_row_per_kind()
    {
        TimeToDetect.Row[] rows =
        [
            new("cold-burst", "marked, +0.31 s", "SlowOpen", [0.42, 0.61, 0.5], 0, 1.25, true),
            new("pool-timeout-held", "load start", "PoolTimeout", [1.0, 1.1], 1, null, true),
            new("idle-pruned", "after warm-up, +0.62 s", "SlowOpen", [0.6], 0, -0.1, true, Early: 1),
        ];

        string[] lines = TimeToDetect.Markdown(rows, 3, 2).Split('\n').Select(l => l.TrimEnd('\r')).ToArray();

        Assert.Contains("| cold-burst | marked, +0.31 s | SlowOpen | 0.50 s | 0.61 s | 0 | 0 | 1.25 s |", lines);
        Assert.Contains("| pool-timeout-held | load start | PoolTimeout | 1.05 s | 1.10 s | 1 | 0 | missed |", lines);
        Assert.Contains("| kind | scenarios | runs | median | max | within 2 s? | max beside CPU hog |", lines);
        Assert.Contains("| SlowOpen | 2 | 5 | 0.55 s | 0.61 s | no (1 before onset) | 1.25 s |", lines);
        Assert.Contains("| PoolTimeout | 1 | 3 | 1.05 s | 1.10 s | no (1 missed) | missed |", lines);
    }
}
