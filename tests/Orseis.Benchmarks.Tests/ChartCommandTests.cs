using System.Globalization;
using System.Text.Json;
using Orseis.Benchmarks.Charts;

namespace Orseis.Benchmarks.Tests;

/// <summary>The chart command reads BenchmarkDotNet's brief JSON reports and computes the ratio table from them.</summary>
public sealed class ChartCommandTests : IDisposable
{
    private readonly string _root = Directory.CreateTempSubdirectory("orseis-chart-").FullName;

    [Fact]
    public void Ratios_come_from_the_reports_and_a_label_renames_a_folders_provider()
    {
        string connector = Report("connector", ("Reuse", 4, 100_000), ("OpenPerCall", 4, 250_000));
        string data = Report("data", ("Reuse", 4, 100_000), ("OpenPerCall", 4, 1_200_000));
        string output = Path.Combine(_root, "out");

        Assert.Equal(0, ChartCommand.Run([connector, "mysql-data=" + data, "--out", output]));

        string[] rows = File.ReadAllLines(Path.Combine(output, "ratio-per-n.md"));
        Assert.Contains("| mysql | Orseis | 4 | 0.100 | 0.250 | 2.50 | 37.50 |", rows);
        Assert.Contains("| mysql-data | Orseis | 4 | 0.100 | 1.200 | 12.00 | 275.00 |", rows);
        Assert.True(File.Exists(Path.Combine(output, "time-per-n-mysql.svg")));
        Assert.True(File.Exists(Path.Combine(output, "time-per-n-mysql-data.svg")));
    }

    [Fact]
    public void A_missing_folder_is_an_error_not_an_empty_chart()
    {
        string output = Path.Combine(_root, "out");
        Assert.Equal(1, ChartCommand.Run([Path.Combine(_root, "nope"), "--out", output]));
        Assert.False(Directory.Exists(output));
    }

    [Fact]
    public void Two_runs_of_one_provider_without_labels_are_refused_not_blended()
    {
        string first = Report("first", ("Reuse", 4, 100_000), ("OpenPerCall", 4, 250_000));
        string second = Report("second", ("Reuse", 4, 100_000), ("OpenPerCall", 4, 1_200_000));
        string output = Path.Combine(_root, "out");
        Assert.Equal(1, ChartCommand.Run([first, second, "--out", output]));
        Assert.False(File.Exists(Path.Combine(output, "ratio-per-n.md")));
    }

    [Theory]
    [InlineData("")]
    [InlineData("../x")]
    [InlineData("My SQL")]
    public void A_label_that_is_not_a_safe_file_name_part_is_refused(string label)
    {
        string folder = Report("one", ("Reuse", 4, 100_000), ("OpenPerCall", 4, 250_000));
        Assert.Equal(1, ChartCommand.Run([label + "=" + folder, "--out", Path.Combine(_root, "out")]));
    }

    [Fact]
    public void A_folder_whose_path_contains_an_equals_sign_is_read_as_a_folder()
    {
        string folder = Report("a=b", ("Reuse", 4, 100_000), ("OpenPerCall", 4, 300_000));
        string output = Path.Combine(_root, "out");
        Assert.Equal(0, ChartCommand.Run([folder, "--out", output]));
        Assert.Contains("| mysql | Orseis | 4 | 0.100 | 0.300 | 3.00 | 50.00 |", File.ReadAllLines(Path.Combine(output, "ratio-per-n.md")));
    }

    private string Report(string name, params (string Method, int N, double MeanNs)[] cases)
    {
        string folder = Path.Combine(_root, name);
        Directory.CreateDirectory(folder);
        var report = new
        {
            Benchmarks = cases.Select(c => new
            {
                Type = "RatioStudySmall",
                c.Method,
                Parameters = string.Create(CultureInfo.InvariantCulture, $"Provider=mysql&N={c.N}"),
                Statistics = new { Mean = c.MeanNs },
            }),
        };
        File.WriteAllText(Path.Combine(folder, "Orseis.Benchmarks.Study.RatioStudySmall-report-brief.json"), JsonSerializer.Serialize(report));
        return folder;
    }

    public void Dispose() => Directory.Delete(_root, recursive: true);
}
