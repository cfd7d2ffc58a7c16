using System.Diagnostics;
using OpenTelemetry;
using OpenTelemetry.Trace;
using Orseis.Diagnostics;

namespace Orseis.Tests.Diagnostics;

/// <summary>
/// The repeated-statement detector on real calls (SQLite): an N+1 loop in a scope is reported when the scope ends, with
/// the loop's call site, as an event on the request's span; a loop without a scope on its flow; an execute-many (one
/// call) and the same statement in concurrent scopes stay silent; with the detector off, nothing is followed at all.
/// </summary>
[Collection(DiagnosticsCollection.Name)]
public sealed class RepeatedStatementTests : DiagTest
{
    private static readonly ActivitySource Requests = new("Orseis.Tests.RepeatedStatementRequests");

    private Database OpenWithDetector() => Open(diagnostics: d => d.Detectors = FindingKind.RepeatedStatement);

    private static IEnumerable<PoolFinding> Repeats(Database db) =>
        db.GetPoolReport().Findings.Where(f => f.Kind == FindingKind.RepeatedStatement);

    [Fact]
    public async Task An_N_plus_1_loop_in_a_scope_is_reported_when_the_scope_ends_from_its_call_site_on_the_requests_span()
    {
        var exported = new List<Activity>();
        using Database db = OpenWithDetector();
        using (TracerProvider provider = Sdk.CreateTracerProviderBuilder().AddSource(Requests.Name).AddInMemoryExporter(exported).Build())
        {
            using (Requests.StartActivity("GET /items"))
            {
                await using (db.BeginScope())
                {
                    List<long> ids = await db.QueryAsync<long>("select id from items");
                    for (int round = 0; round < 4; round++)
                    {
                        foreach (long id in ids)
                            _ = await db.QuerySingleOrDefaultAsync<string>("select name from items where id = @id", new { id = id + round });
                    }

                    Assert.Empty(Repeats(db)); // the loop is still in its scope
                }
            }

            Assert.True(provider.ForceFlush(10_000));
        }

        PoolFinding finding = Assert.Single(Repeats(db));
        Assert.Equal(12, finding.Figures["runs"]);
        Assert.InRange(finding.Figures["distinctArguments"], 5, 6); // ids 1..6 over the rounds
        Assert.Equal(1, finding.Figures["scoped"]);
        Assert.StartsWith("N+1 candidate: one statement ran 12 times one after another in one scope", finding.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(An_N_plus_1_loop_in_a_scope_is_reported_when_the_scope_ends_from_its_call_site_on_the_requests_span),
            finding.Location, StringComparison.Ordinal);

        ActivityEvent onSpan = Assert.Single(Assert.Single(exported).Events, e => e.Name == "orseis.finding");
        Dictionary<string, object?> tags = onSpan.Tags.ToDictionary(t => t.Key, t => t.Value);
        Assert.Equal("RepeatedStatement", tags["orseis.finding.kind"]);
        Assert.Equal(finding.Message, tags["orseis.finding.message"]);
        Assert.Equal("https://github.com/orseis/orseis/blob/main/docs/findings.md#repeatedstatement", tags["orseis.finding.help_link"]);
        Assert.Equal(12.0, tags["orseis.finding.runs"]);
    }

    [Fact]
    public async Task A_loop_without_a_scope_is_reported_on_its_flow_once_the_gap_passes()
    {
        using Database db = OpenWithDetector();
        for (int i = 0; i < 8; i++)
            _ = db.QuerySingleOrDefault<string>("select name from items where id = @i", new { i });

        Assert.Empty(Repeats(db));
        PoolFinding finding = await Eventually(() => Repeats(db).SingleOrDefault());
        Assert.Equal(8, finding.Figures["runs"]);
        Assert.Equal(0, finding.Figures["scoped"]);
        Assert.Contains("on one flow (no scope)", finding.Message, StringComparison.Ordinal);
        Assert.Contains(nameof(A_loop_without_a_scope_is_reported_on_its_flow_once_the_gap_passes), finding.Location, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_execute_many_and_the_same_statement_in_concurrent_scopes_are_silent()
    {
        using Database db = OpenWithDetector();
        db.Execute("insert into items (id, name) values (@id, @name)", Enumerable.Range(10, 50).Select(i => new { id = i, name = "n" }));
        await Task.WhenAll(Enumerable.Range(0, 20).Select(async user =>
        {
            await Task.Yield();
            await using (db.BeginScope())
                _ = await db.QuerySingleOrDefaultAsync<string>("select name from items where id = @user", new { user });
        }));

        await Task.Delay(300); // past the gap and the timer's check
        Assert.Empty(Repeats(db));
    }

    [Fact]
    public async Task Each_scope_counts_from_nothing_though_the_units_are_reused()
    {
        using Database db = OpenWithDetector();
        for (int request = 0; request < 6; request++)
        {
            // Three lookups a request: under the threshold of 5, unless a reused unit kept an earlier request's runs.
            await using (db.BeginScope())
            {
                for (int i = 0; i < 3; i++)
                    _ = await db.QuerySingleOrDefaultAsync<string>("select name from items where id = @i", new { i });
            }
        }

        Assert.Empty(Repeats(db));
        await using (db.BeginScope())
        {
            for (int i = 0; i < 7; i++)
                _ = await db.QuerySingleOrDefaultAsync<string>("select name from items where id = @i", new { i });
        }

        PoolFinding finding = Assert.Single(Repeats(db));
        Assert.Equal(7, finding.Figures["runs"]);
        Assert.Equal(7, finding.Figures["distinctArguments"]);
    }

    [Fact]
    public void With_the_detector_off_a_loop_is_not_reported()
    {
        using Database db = Open(diagnostics: d => d.Detectors = FindingKind.All & ~FindingKind.RepeatedStatement);
        using (db.BeginScope())
        {
            for (int i = 0; i < 10; i++)
                _ = db.QuerySingleOrDefault<string>("select name from items where id = @i", new { i });
        }

        Assert.Empty(Repeats(db));
    }

    private static async Task<T> Eventually<T>(Func<T?> probe)
        where T : class
    {
        for (int i = 0; i < 100; i++)
        {
            if (probe() is { } value)
                return value;
            await Task.Delay(50);
        }

        return probe() ?? throw new Xunit.Sdk.XunitException("not reported within 5 s");
    }
}
