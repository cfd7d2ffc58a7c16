using Orseis.Benchmarks.Charts;
using Orseis.Benchmarks.Study.Analysis;

namespace Orseis.Benchmarks.Tests;

/// <summary>The chart command reads the study's JSON results and draws PNG and SVG charts and the ratio table.</summary>
public sealed class ChartCommandTests : IDisposable
{
    private readonly string _root = Directory.CreateTempSubdirectory("orseis-chart-").FullName;

    [Fact]
    public void Charts_and_table_come_from_the_results_and_a_label_renames_a_folders_provider()
    {
        string connector = Results("connector", "mysql", reuse: [100_000, 110_000], perCall: [250_000, 264_000]);
        string data = Results("data", "mysql", reuse: [100_000, 100_000], perCall: [1_200_000, 1_200_000]);
        string output = Path.Combine(_root, "out");

        Assert.Equal(0, ChartCommand.Run([connector, "mysql-data=" + data], output));

        string table = File.ReadAllText(Path.Combine(output, "ratio-per-n.md"));
        // Paired ratios 2.50 and 2.40: median 2.45.
        Assert.Contains("| 4 | Orseis | 2.45 |", table, StringComparison.Ordinal);
        Assert.Contains("| 4 | Orseis | 12.00 |", table, StringComparison.Ordinal);
        foreach (string file in new[] { "ratio-per-n.png", "ratio-per-n.svg", "time-per-n-mysql.png", "time-per-n-mysql.svg", "time-per-n-mysql-data.png" })
            Assert.True(new FileInfo(Path.Combine(output, file)).Length > 1000, file);
        Assert.StartsWith("\u0089PNG", File.ReadAllText(Path.Combine(output, "ratio-per-n.png"), System.Text.Encoding.Latin1), StringComparison.Ordinal);
        Assert.Contains("<svg", File.ReadAllText(Path.Combine(output, "ratio-per-n.svg")), StringComparison.Ordinal);
    }

    [Fact]
    public void A_missing_folder_is_an_error_not_an_empty_chart()
    {
        string output = Path.Combine(_root, "out");
        Assert.Equal(1, ChartCommand.Run([Path.Combine(_root, "nope")], output));
        Assert.False(Directory.Exists(output));
    }

    [Fact]
    public void Two_runs_of_one_provider_without_labels_are_refused_not_blended()
    {
        string first = Results("first", "mysql", [100_000], [250_000]);
        string second = Results("second", "mysql", [100_000], [1_200_000]);
        string output = Path.Combine(_root, "out");
        Assert.Equal(1, ChartCommand.Run([first, second], output));
        Assert.False(File.Exists(Path.Combine(output, "ratio-per-n.md")));
    }

    [Fact]
    public void A_scope_only_run_of_a_provider_joins_its_study_run_as_a_file_and_keeps_its_own_section()
    {
        string study = Results("study", "mysql", reuse: [100_000, 110_000], perCall: [250_000, 264_000]);
        string scopes = Path.Combine(_root, "scopes");
        Directory.CreateDirectory(scopes);
        string scopeFile = Path.Combine(scopes, "study-scope-mysql.json");
        double[] reuse = [100_000, 100_000];
        new StudyResults("mysql", "Test 1.0", 2, "wall time", new DateTime(2026, 11, 26, 18, 38, 0, DateTimeKind.Utc), 60, [
            new StudyPoint("Orseis", "AdaptiveScope", 4, reuse, [130_000, 130_000]),
            new StudyPoint("Orseis", "SessionPerUnit", 4, reuse, [125_000, 125_000]),
        ]).Write(scopeFile);
        string output = Path.Combine(_root, "out");

        Assert.Equal(0, ChartCommand.Run([study, scopeFile], output));

        string table = File.ReadAllText(Path.Combine(output, "ratio-per-n.md"));
        Assert.Contains("| 4 | Orseis | 2.45 |", table, StringComparison.Ordinal);
        Assert.Contains("| 4 | Orseis in a ConnectionScope | 1.30 |", table, StringComparison.Ordinal);
        Assert.Contains("| 4 | Orseis, a Session per N | 1.25 |", table, StringComparison.Ordinal);
        Assert.Contains("## mysql: Test 1.0, 2 rounds, wall time, 1.0 min, 2026-11-26 18:38 UTC", table, StringComparison.Ordinal);
        Assert.Equal(2, table.Split("## mysql:").Length - 1);
        // The time chart comes from the run that has open-per-call lines; the scope-only run draws none over it.
        Assert.True(new FileInfo(Path.Combine(output, "time-per-n-mysql.png")).Length > 1000);

        // The same file given twice measured the same variants twice: refused, not blended.
        Assert.Equal(1, ChartCommand.Run([study, scopeFile, scopeFile], Path.Combine(_root, "out2")));
    }

    [Theory]
    [InlineData("")]
    [InlineData("../x")]
    [InlineData("My SQL")]
    public void A_label_that_is_not_a_safe_file_name_part_is_refused(string label)
    {
        string folder = Results("one", "mysql", [100_000], [250_000]);
        Assert.Equal(1, ChartCommand.Run([label + "=" + folder], Path.Combine(_root, "out")));
    }

    [Fact]
    public void A_folder_whose_path_contains_an_equals_sign_is_read_as_a_folder()
    {
        string folder = Results("a=b", "mysql", [100_000], [300_000]);
        string output = Path.Combine(_root, "out");
        Assert.Equal(0, ChartCommand.Run([folder], output));
        Assert.Contains("| 4 | Orseis | 3.00 |", File.ReadAllText(Path.Combine(output, "ratio-per-n.md")), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(5, 0)]
    [InlineData(6, 1)]
    [InlineData(9, 2)]
    [InlineData(10, 2)]
    [InlineData(20, 6)]
    public void The_interval_ranks_bracket_the_median_with_95_percent_confidence(int rounds, int rank) =>
        Assert.Equal(rank, OrderStatistics.LowerRank(rounds));

    [Fact]
    public void The_ratio_is_the_median_of_the_paired_ratios_and_one_disturbed_round_does_not_move_its_interval()
    {
        double[] reuse = [.. Enumerable.Repeat(1.0, 10)];
        double[] perCall = [4.0, 4.1, 3.9, 4.0, 4.2, 3.8, 4.05, 3.95, 4.0, 9.0];
        var point = new StudyPoint("Orseis", "OpenPerCall", 4, reuse, perCall);
        Assert.Equal(4.0, point.Ratio, 9);
        // 10 rounds: the 2nd smallest and 2nd largest ratio.
        Assert.Equal((3.9, 4.2), point.Interval);
        Assert.True(double.IsNaN(new StudyPoint("Orseis", "OpenPerCall", 4, [1, 1, 1], [2, 2, 8]).Interval.Low));
    }

    [Fact]
    public void A_rerun_inside_the_first_runs_interval_is_counted_as_reproduced()
    {
        double[] ones = [1, 1, 1, 1, 1, 1];
        var first = Run("sqlite", new StudyPoint("Orseis", "OpenPerCall", 4, ones, [2.9, 3, 3.1, 3.05, 2.95, 3]));
        var close = Run("sqlite", new StudyPoint("Orseis", "OpenPerCall", 4, ones, [2.95, 3.05, 3, 3.02, 2.98, 3]));
        var far = Run("sqlite", new StudyPoint("Orseis", "OpenPerCall", 4, ones, [4, 4.1, 3.9, 4, 4, 4]));
        Assert.Contains("inside the first's interval at 1, each inside the other's at 1", StudyComparison.Table(first, close), StringComparison.Ordinal);
        Assert.Contains("inside the first's interval at 0", StudyComparison.Table(first, far), StringComparison.Ordinal);
    }

    [Fact]
    public void A_rerun_just_outside_the_first_runs_interval_prints_figures_that_show_it()
    {
        double[] ones = [1, 1, 1, 1, 1, 1];
        var first = Run("sqlite", new StudyPoint("Orseis", "OpenPerCall", 4, ones, [4.102, 4.106, 4.108, 4.11, 4.112, 4.114]));
        var rerun = Run("sqlite", new StudyPoint("Orseis", "OpenPerCall", 4, ones, [4.116, 4.117, 4.118, 4.118, 4.119, 4.12]));

        // To two decimals both would read 4.11 and the "no" would look wrong.
        string table = StudyComparison.Table(first, rerun);
        Assert.Contains("| 4.109 [4.102–4.114] | 4.118 [4.116–4.120] | **no** |", table, StringComparison.Ordinal);
    }

    private static StudyResults Run(string provider, params StudyPoint[] points) =>
        new(provider, "Test 1.0", points[0].ReuseNs.Count, "wall time", new DateTime(2026, 11, 23, 0, 0, 0, DateTimeKind.Utc), 60, points);

    private string Results(string name, string provider, double[] reuse, double[] perCall)
    {
        string folder = Path.Combine(_root, name);
        Directory.CreateDirectory(folder);
        Run(provider, new StudyPoint("Orseis", "OpenPerCall", 4, reuse, perCall), new StudyPoint("Orseis", "OpenPerCall", 8, [.. reuse.Select(r => r * 2)], [.. perCall.Select(p => p * 2)]))
            .Write(Path.Combine(folder, StudyResults.FileName(provider)));
        return folder;
    }

    public void Dispose() => Directory.Delete(_root, recursive: true);
}
