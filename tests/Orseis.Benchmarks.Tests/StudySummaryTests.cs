using Orseis.Benchmarks.Study;
using Orseis.Benchmarks.Study.Analysis;

namespace Orseis.Benchmarks.Tests;

/// <summary>The closing summary and the markdown table carry the adaptive scope beside the session at every N.</summary>
public sealed class StudySummaryTests
{
    private static readonly double[] Reuse = [1000, 1000, 1000, 1000, 1000, 1000];

    [Fact]
    public void The_console_summary_gives_scope_session_and_their_quotient_on_every_N_line()
    {
        // At N = 2 the scope is 1.32 times reuse and the session 1.20: scope/session 1.10; at N = 4 1.04 and 1.04: 1.00.
        StudyResults results = Run(
            Point(nameof(RatioStudy.OpenPerCall), 2, 4.0), Point(nameof(RatioStudy.AdaptiveScope), 2, 1.32), Point(nameof(RatioStudy.SessionPerUnit), 2, 1.20),
            Point(nameof(RatioStudy.OpenPerCall), 4, 4.1), Point(nameof(RatioStudy.AdaptiveScope), 4, 1.04), Point(nameof(RatioStudy.SessionPerUnit), 4, 1.04));

        string[] lines = StudySummary.Console(results, []).Split('\n');

        string two = Assert.Single(lines, l => l.TrimStart().StartsWith("2 |", StringComparison.Ordinal));
        string four = Assert.Single(lines, l => l.TrimStart().StartsWith("4 |", StringComparison.Ordinal));
        Assert.Contains("| scope 1.32 [", two, StringComparison.Ordinal);
        Assert.Contains("| session 1.20 [", two, StringComparison.Ordinal);
        Assert.EndsWith("| scope/session 1.10", two.TrimEnd(), StringComparison.Ordinal);
        Assert.EndsWith("| scope/session 1.00", four.TrimEnd(), StringComparison.Ordinal);
        Assert.Contains(lines, l => l.Contains("adaptive scope median 1.18x (range 1.04-1.32), session per N median 1.12x (range 1.04-1.20), scope/session 1.00-1.10 over N", StringComparison.Ordinal));
        // The legend says what the columns are.
        Assert.Contains(lines, l => l.Contains("scope/session", StringComparison.Ordinal) && l.Contains("ConnectionScope", StringComparison.Ordinal));
    }

    [Fact]
    public void The_markdown_table_names_each_variant_and_its_time_per_query()
    {
        StudyResults results = Run(
            Point(nameof(RatioStudy.OpenPerCall), 2, 4.0), Point(nameof(RatioStudy.AdaptiveScope), 2, 1.32), Point(nameof(RatioStudy.SessionPerUnit), 2, 1.20));

        string table = StudySummary.Markdown([results], "study");

        Assert.Contains("| reuse (us/query) | open per call, scope or session (us/query) |", table, StringComparison.Ordinal);
        // 1000 ns for 2 queries: 0.5 us per query with reuse; 1.32 times that in the scope.
        Assert.Contains("| 2 | Orseis in a ConnectionScope | 1.32 | 1.32–1.32 | 0.0 | 0.500 | 0.660 |", table, StringComparison.Ordinal);
        Assert.Contains("| 2 | Orseis, a Session per N | 1.20 |", table, StringComparison.Ordinal);
        Assert.Contains("| 2 | Orseis | 4.00 |", table, StringComparison.Ordinal);
    }

    [Fact]
    public void Without_a_session_at_some_N_there_is_no_quotient_there()
    {
        StudyResults results = Run(
            Point(nameof(RatioStudy.OpenPerCall), 2, 4.0), Point(nameof(RatioStudy.AdaptiveScope), 2, 1.32), Point(nameof(RatioStudy.SessionPerUnit), 2, 1.20),
            Point(nameof(RatioStudy.OpenPerCall), 4, 4.0), Point(nameof(RatioStudy.AdaptiveScope), 4, 1.10));

        Assert.Equal(1.1, StudySummary.ScopeOverSession(results, 2)!.Value, 9);
        Assert.Null(StudySummary.ScopeOverSession(results, 4));
        Assert.DoesNotContain("scope/session", StudySummary.Console(results, []).Split('\n').Single(l => l.TrimStart().StartsWith("4 |", StringComparison.Ordinal)), StringComparison.Ordinal);
    }

    private static StudyPoint Point(string variant, int n, double ratio) =>
        new(StudyParameters.Orseis, variant, n, Reuse, [.. Reuse.Select(r => r * ratio)]);

    private static StudyResults Run(params StudyPoint[] points) =>
        new("sqlite", "Microsoft.Data.Sqlite 10", 6, "thread CPU time", new DateTime(2026, 11, 29, 0, 0, 0, DateTimeKind.Utc), 60, points);
}
