using System.Data;
using System.Diagnostics;
using Orseis.Diagnostics;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;

namespace Orseis.Tests.Diagnostics;

/// <summary>
/// <c>db.client.operation.duration</c> per operation, exported through the OpenTelemetry SDK: <c>db.operation.name</c>,
/// <c>db.query.summary</c> for single-table statements, a procedure's name; bounded per pool; never the text. And the
/// rule that keeps a conventional instrument to one publisher per pool: where the provider's meter publishes it, Orseis'
/// figure goes under <c>orseis.*</c>.
/// </summary>
[Collection(DiagnosticsCollection.Name)]
public sealed class OperationAttributeTests : DiagTest
{
    [Fact]
    public void A_statement_text_is_read_once_and_the_texts_remembered_are_bounded()
    {
        var sets = new OperationTagSets([new("db.system.name", "sqlite")]);
        string sql = "select name from orders where id = @id";
        KeyValuePair<string, object?>[] first = sets.For(sql, null);
        Assert.Same(first, sets.For(sql, null));
        Assert.Equal("SELECT orders", sets.SummaryOf(sql));
        Assert.Equal(1, sets.Texts);

        // The same text in another string instance (SQL built at run time) reads to the same attributes.
        string built = string.Concat("select name from ", "orders where id = @id");
        Assert.Same(first, sets.For(built, null));

        // SQL built anew for every call: remembered up to the bound, right past it too.
        for (int i = 0; i < OperationTagSets.MaxTexts + 50; i++)
        {
            string text = $"update t{i % 10} set v = 1 where k = {i}";
            Assert.Equal($"UPDATE t{i % 10}", sets.SummaryOf(text));
        }

        Assert.Equal(OperationTagSets.MaxTexts, sets.Texts);
        Assert.Same(first, sets.For(sql, null));
        Assert.Null(sets.SummaryOf("select 1"));
    }

    [Fact]
    public void Operation_duration_is_split_by_operation_and_single_table_summary()
    {
        List<MetricSnapshot> exported = Export(() =>
        {
            using Database db = Open();
            for (int i = 0; i < 3; i++)
                db.Query<string>("select name from items where id = @id", new { id = i });
            db.Execute("update items set name = @name where id = @id", new { id = 1, name = "uno" });
            db.Execute("insert into items (id, name) values (@id, @name)", new { id = 9, name = "nine" });
            db.Scalar<long>("select count(*) from items a join items b on a.id = b.id");
            db.Scalar<long>("select 1");
            db.Scalar<long>("with x as (select 1 as v) select v from x");
        });

        List<Dictionary<string, object?>> points = [.. Mine(exported, "db.client.operation.duration").Select(Tags)];
        Assert.Equal(
            ["-|-", "INSERT|INSERT items", "SELECT|-", "SELECT|SELECT items", "UPDATE|UPDATE items"],
            points.Select(t => $"{t.GetValueOrDefault("db.operation.name") ?? "-"}|{t.GetValueOrDefault("db.query.summary") ?? "-"}").Order());
        Assert.Equal(3, Mine(exported, "db.client.operation.duration").Single(p => Equals(Tags(p).GetValueOrDefault("db.query.summary"), "SELECT items")).GetHistogramCount());
        Assert.Equal(2, Mine(exported, "db.client.operation.duration").Single(p => Equals(Tags(p).GetValueOrDefault("db.operation.name"), "SELECT") && !Tags(p).ContainsKey("db.query.summary")).GetHistogramCount());
        Assert.DoesNotContain(points, t => t.ContainsKey("db.query.text") || t.ContainsKey("db.collection.name"));
    }

    [Fact]
    public void Summaries_per_pool_are_bounded_and_a_measured_command_allocates_nothing_once_its_set_exists()
    {
        List<MetricSnapshot> exported = Export(() =>
        {
            using var telemetry = new PoolTelemetry(Pool, "sqlite", null, new DiagnosticsOptions());
            for (int i = 0; i < OperationTagSets.MaxSets + 50; i++)
                telemetry.CommandCompleted(telemetry.CommandStarting("x"), succeeded: true, sql: $"select * from t{i}");
            telemetry.CommandCompleted(telemetry.CommandStarting("x"), succeeded: true, sql: "{call p}", args: new ParameterBag { CommandType = CommandType.StoredProcedure });

            string sql = "select * from t1 where id = @id";
            telemetry.CommandCompleted(telemetry.CommandStarting(sql), succeeded: true, sql: sql);
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < 100; i++)
                telemetry.CommandCompleted(telemetry.CommandStarting(sql), succeeded: true, sql: sql);
            Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        });

        List<Dictionary<string, object?>> points = [.. Mine(exported, "db.client.operation.duration").Select(Tags)];
        Assert.Equal(OperationTagSets.MaxSets, points.Count(t => t.ContainsKey("db.query.summary")));
        Assert.Contains(points, t => !t.ContainsKey("db.query.summary") && Equals(t.GetValueOrDefault("db.operation.name"), "SELECT"));
        Assert.DoesNotContain(points, t => t.ContainsKey("db.stored_procedure.name")); // the bound was reached first
    }

    [Fact]
    public void A_procedure_call_carries_its_name()
    {
        List<MetricSnapshot> exported = Export(() =>
        {
            using var telemetry = new PoolTelemetry(Pool, "mysql", 10, new DiagnosticsOptions());
            var args = new ParameterBag { CommandType = CommandType.StoredProcedure };
            telemetry.CommandCompleted(telemetry.CommandStarting("shop.refresh"), succeeded: true, sql: "shop.refresh", args: args);
        });

        Dictionary<string, object?> tags = Tags(Assert.Single(Mine(exported, "db.client.operation.duration")));
        Assert.Equal("shop.refresh", tags["db.stored_procedure.name"]);
        Assert.False(tags.ContainsKey("db.operation.name"));
    }

    [Theory]
    [InlineData(0, "db.client.connection", "db.client.operation.duration")] // MySql.Data, SqlClient, SQLite
    [InlineData(1, "orseis.connection", "db.client.operation.duration")] // MySqlConnector: its pool
    [InlineData(3, "orseis.connection", "orseis.operation.duration")] // Npgsql: its pool and commands
    public void Instruments_the_provider_publishes_itself_go_under_orseis_names(int owned, string poolPrefix, string duration)
    {
        var provider = (ProviderInstruments)owned;
        string other = poolPrefix == "orseis.connection" ? "db.client.connection" : "orseis.connection";
        // The pool stays registered until the export is read: its observable counts are collected then.
        using var telemetry = new PoolTelemetry(Pool, "postgresql", 7, new DiagnosticsOptions(), providerInstruments: provider);
        List<MetricSnapshot> exported = Export(() =>
        {
            telemetry.OpenCompleted(telemetry.OpenStarting(async: false));
            telemetry.CommandCompleted(telemetry.CommandStarting("select 1"), succeeded: true, sql: "select 1");
        });

        foreach (string suffix in new[] { "count", "max", "pending_requests", "wait_time" })
        {
            Assert.NotEmpty(Mine(exported, $"{poolPrefix}.{suffix}"));
            Assert.Empty(Mine(exported, $"{other}.{suffix}"));
        }

        Assert.Equal(1, Tags(Mine(exported, $"{poolPrefix}.count").Single()).Count(t => t.Key == "db.client.connection.state"));
        Assert.Single(Mine(exported, duration));
        Assert.Empty(Mine(exported, duration == "orseis.operation.duration" ? "db.client.operation.duration" : "orseis.operation.duration"));
    }

    [Fact]
    public void The_pool_wait_and_session_open_spans_are_internal_and_calls_carry_their_summary()
    {
        var spans = new List<Activity>();
        using (TracerProvider tracing = Sdk.CreateTracerProviderBuilder().AddSource("Orseis").AddInMemoryExporter(spans).Build())
        {
            using Database db = Open();
            db.Query<string>("select name from items");
            using (Session session = db.OpenSession())
                session.Scalar<long>("select count(*) from items a join items b on a.id = b.id");
        }

        List<Activity> mine = [.. spans.Where(s => Equals(s.GetTagItem("db.client.connection.pool.name"), Pool))];
        Assert.All(mine.Where(s => s.DisplayName is CallSpans.OpenName or CallSpans.SessionOpenName), s => Assert.Equal(ActivityKind.Internal, s.Kind));
        List<Activity> calls = [.. mine.Where(s => s.DisplayName.StartsWith("SELECT", StringComparison.Ordinal)).OrderBy(c => c.StartTimeUtc)];
        Assert.Equal(["SELECT items", "SELECT"], calls.Select(c => c.DisplayName)); // the join has no summary
        Assert.All(calls, c => Assert.Equal(ActivityKind.Client, c.Kind));
        Assert.Equal(["SELECT items", null], calls.Select(c => c.GetTagItem("db.query.summary")));
    }

    private static List<MetricSnapshot> Export(Action work)
    {
        var exported = new List<MetricSnapshot>();
        using (MeterProvider provider = Sdk.CreateMeterProviderBuilder().AddMeter("Orseis").AddInMemoryExporter(exported).Build())
        {
            work();
            Assert.True(provider.ForceFlush(10_000));
        }

        return exported.GroupBy(m => m.Name).Select(g => g.Last()).ToList();
    }

    private List<MetricPoint> Mine(List<MetricSnapshot> exported, string name) =>
        [.. exported.Where(m => m.Name == name).SelectMany(m => m.MetricPoints)
            .Where(p => Equals(Tags(p).GetValueOrDefault("db.client.connection.pool.name"), Pool))];

    private static Dictionary<string, object?> Tags(MetricPoint point)
    {
        var tags = new Dictionary<string, object?>();
        foreach (KeyValuePair<string, object?> tag in point.Tags)
            tags[tag.Key] = tag.Value;
        return tags;
    }
}
