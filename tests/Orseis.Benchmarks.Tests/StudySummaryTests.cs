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

    [Fact]
    public void Where_the_scope_and_the_session_were_timed_side_by_side_that_pair_is_the_quotient_not_the_ratio_of_ratios()
    {
        // The session's own reuse baseline read slow (the ratios to reuse say 1.32 / 1.10 = 1.20); timed against each
        // other the scope is 1.03 times the session, and that is what the column, the range and the table give.
        StudyResults results = Run(
            Point(nameof(RatioStudy.OpenPerCall), 8, 4.0), Point(nameof(RatioStudy.AdaptiveScope), 8, 1.32), Point(nameof(RatioStudy.SessionPerUnit), 8, 1.10),
            Point(nameof(RatioStudy.ScopeOverSession), 8, 1.03));

        Assert.Equal(1.03, StudySummary.ScopeOverSession(results, 8)!.Value, 9);
        string[] lines = StudySummary.Console(results, []).Split('\n');
        string eight = Assert.Single(lines, l => l.TrimStart().StartsWith("8 |", StringComparison.Ordinal));
        Assert.EndsWith("| scope/session 1.03 [1.03-1.03]", eight.TrimEnd(), StringComparison.Ordinal);
        Assert.Contains(lines, l => l.Contains("scope/session 1.03-1.03 over N", StringComparison.Ordinal));
        string table = StudySummary.Markdown([results], "study");
        // Its row is in the scope/session table (the session 0.125 us a query, the scope 1.03 times that), not among the ratios to reuse.
        Assert.Contains("| 8 | 1.03 | 1.03–1.03 | 0.0 | 0.125 | 0.129 | 1.03 1.03 1.03 1.03 1.03 1.03 |", table, StringComparison.Ordinal);
        Assert.DoesNotContain("ScopeOverSession", table, StringComparison.Ordinal);
    }

    private static StudyPoint Point(string variant, int n, double ratio) =>
        new(StudyParameters.Orseis, variant, n, Reuse, [.. Reuse.Select(r => r * ratio)]);

    private static StudyResults Run(params StudyPoint[] points) =>
        new("sqlite", "Microsoft.Data.Sqlite 10", 6, "thread CPU time", new DateTime(2026, 11, 29, 0, 0, 0, DateTimeKind.Utc), 60, points);
}
