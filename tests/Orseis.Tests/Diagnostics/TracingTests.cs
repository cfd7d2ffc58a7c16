using System.Data;
using System.Diagnostics;
using Orseis.Diagnostics;
using Orseis.Tests.Infrastructure;
using OpenTelemetry;
using OpenTelemetry.Trace;

namespace Orseis.Tests.Diagnostics;

/// <summary>
/// The Orseis ActivitySource as an OpenTelemetry user receives it: spans exported through the OpenTelemetry SDK
/// (in-memory exporter), for every kind of call in every mode, sync and async.
/// </summary>
[Collection(DiagnosticsCollection.Name)]
public sealed class TracingTests : DiagTest
{
    private static readonly ActivitySource Caller = new("Orseis.Tests.Caller");

    public static TheoryData<RunnerKind> Kinds => [RunnerKind.OpenPerCall, RunnerKind.ReuseConnection, RunnerKind.Session];

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Every_call_is_one_client_span_named_by_its_operation_with_the_pool_wait_as_an_internal_child(RunnerKind kind)
    {
        List<Activity> spans = await TraceAsync(async () =>
        {
            using Database db = Open(kind == RunnerKind.ReuseConnection ? ExecutionMode.ReuseConnection : ExecutionMode.OpenPerCall);
            using Session? session = kind == RunnerKind.Session ? db.OpenSession() : null;
            SqlRunner runner = session ?? (SqlRunner)db;
            Assert.Equal(3, runner.Query<string>("select name from items order by id").Count);
            Assert.Equal(3, (await runner.QueryAsync<string>("select name from items order by id")).Count);
            Assert.Equal(3, runner.Scalar<long>("  -- how many\n select count(*) from items"));
            Assert.Equal(1, await runner.ExecuteAsync("update items set name = name where id = @id", new { id = 1 }));
            Assert.Equal(2, runner.Execute("insert into items (id, name) values (@id, @name)", new[] { new { id = 10, name = "a" }, new { id = 11, name = "b" } }));
            Assert.Equal(1, runner.Execute("insert into items (id, name) values (@id, @name)", new[] { new { id = 12, name = "c" } }));
            Assert.Equal(6, runner.Stream<string>("select name from items").Count());
            Assert.Equal(6, await runner.StreamAsync<string>("select name from items").CountAsync());
            using (GridReader grids = runner.QueryMultiple("select 1; select 2"))
                Assert.Equal(1, grids.ReadSingle<int>());
            await using (GridReader grids = await runner.QueryMultipleAsync("select 1; select 2"))
                Assert.Equal([1], await grids.ReadAsync<int>());
        });

        List<Activity> calls = [.. spans.Where(s => s.DisplayName != CallSpans.OpenName && s.DisplayName != CallSpans.SessionOpenName)];
        // Named after the query summary (one table); the grids' two statements have none, so their spans take the system's name.
        Assert.Equal(
            [
                "SELECT items", "SELECT items", "SELECT items", "UPDATE items", "INSERT items", "INSERT items", "SELECT items",
                "SELECT items", "sqlite", "sqlite",
            ],
            calls.Select(s => s.DisplayName));
        foreach (Activity call in calls)
        {
            Assert.Equal(ActivityKind.Client, call.Kind);
            Assert.Equal(ActivityStatusCode.Unset, call.Status);
            Assert.Equal("sqlite", call.GetTagItem("db.system.name"));
            Assert.Equal(Pool, call.GetTagItem("db.client.connection.pool.name"));
            Assert.Equal(call.DisplayName == "sqlite" ? null : call.DisplayName.Split(' ')[0], call.GetTagItem("db.operation.name"));
            Assert.Equal(call.DisplayName == "sqlite" ? null : call.DisplayName, call.GetTagItem("db.query.summary"));
            Assert.Null(call.GetTagItem("db.query.text"));
            Assert.Null(call.GetTagItem("error.type"));
            Assert.Equal(default, call.ParentSpanId);
            if (call.DisplayName != "INSERT items")
                Assert.Null(call.GetTagItem("db.operation.batch.size"));
        }

        // A sequence of two items runs as a batch of 2; a sequence of one is a single operation, with no batch size.
        Assert.Equal([2, null], calls.Where(c => c.DisplayName == "INSERT items").Select(c => c.GetTagItem("db.operation.batch.size")));

        // The pool wait: a child span wherever a connection is opened (every call in OpenPerCall; the shared connection's
        // first open in ReuseConnection; the session's open, under the session's own span).
        List<Activity> opens = [.. spans.Where(s => s.DisplayName == CallSpans.OpenName)];
        Assert.All(opens, open => Assert.Equal(ActivityKind.Internal, open.Kind)); // no dependency call of its own
        switch (kind)
        {
            case RunnerKind.OpenPerCall:
                Assert.Equal(calls.Count, opens.Count);
                Assert.All(calls, call => Assert.Single(opens, open => open.ParentSpanId == call.SpanId));
                break;
            case RunnerKind.ReuseConnection:
                Assert.Equal(calls[0].SpanId, Assert.Single(opens).ParentSpanId);
                break;
            default:
                Activity sessionOpen = Assert.Single(spans, s => s.DisplayName == CallSpans.SessionOpenName);
                Assert.Equal(sessionOpen.SpanId, Assert.Single(opens).ParentSpanId);
                Assert.True(opens[0].Duration <= sessionOpen.Duration);
                break;
        }
    }

    [Fact]
    public async Task Spans_are_children_of_the_callers_activity_and_calls_inside_a_stream_are_not_the_streams_children()
    {
        ActivitySpanId request = default;
        ActivityTraceId trace = default;
        List<Activity> spans = await TraceAsync(async () =>
        {
            using Database db = Open();
            using Activity? caller = Caller.StartActivity("request");
            Assert.NotNull(caller);
            (request, trace) = (caller.SpanId, caller.TraceId);
            foreach (string name in db.Stream<string>("select name from items order by id"))
            {
                Assert.Same(caller, Activity.Current);
                db.Scalar<long>("select count(*) from items where name = @name", new { name });
            }

            await foreach (string name in db.StreamAsync<string>("select name from items order by id"))
            {
                Assert.Same(caller, Activity.Current);
                await db.ScalarAsync<long>("select count(*) from items where name = @name", new { name });
            }

            await using (GridReader grids = await db.QueryMultipleAsync("select 1; select 2"))
            {
                Assert.Same(caller, Activity.Current);
                await grids.ReadAsync<int>();
            }

            Assert.Same(caller, Activity.Current);
        });

        List<Activity> calls = [.. spans.Where(s => s.DisplayName != CallSpans.OpenName)];
        Assert.Equal(9, calls.Count); // 2 streams, 6 scalars, 1 grid reader
        Assert.All(calls, call => Assert.Equal(request, call.ParentSpanId));
        Assert.All(spans, span => Assert.Equal(trace, span.TraceId));
        Assert.All(spans.Where(s => s.DisplayName == CallSpans.OpenName), open => Assert.Contains(calls, call => call.SpanId == open.ParentSpanId));

        // Spans end in order: three scalars, then the sync stream that enclosed them; the same async; then the grid.
        foreach (int stream in new[] { 3, 7 })
        {
            for (int inner = stream - 3; inner < stream; inner++)
            {
                Assert.True(calls[inner].StartTimeUtc >= calls[stream].StartTimeUtc);
                Assert.True(calls[inner].StartTimeUtc + calls[inner].Duration <= calls[stream].StartTimeUtc + calls[stream].Duration);
            }
        }
    }

    [Fact]
    public async Task Query_text_is_recorded_only_when_the_user_opts_in()
    {
        const string Sql = "select name from items where id = @id";
        foreach (bool capture in new[] { false, true })
        {
            List<Activity> spans = await TraceAsync(async () =>
            {
                using Database db = Open(diagnostics: d => d.CaptureCommandText = capture);
                db.QuerySingle<string>(Sql, new { id = 1 });
                await db.QuerySingleAsync<string>(Sql, new { id = 2 });
                Assert.Equal(3, db.Stream<string>("select name from items").Count());
            });

            List<Activity> calls = [.. spans.Where(s => s.DisplayName != CallSpans.OpenName)];
            Assert.Equal(3, calls.Count);
            Assert.Equal(capture ? [Sql, Sql, "select name from items"] : [null, null, null], calls.Select(c => c.GetTagItem("db.query.text")));
            Assert.DoesNotContain(spans.SelectMany(s => s.TagObjects), t => t.Value is 1 or 2); // parameter values never
        }
    }

    [Fact]
    public async Task A_failed_call_has_status_error_and_error_type_never_the_message()
    {
        (Database db, TestDataSource source) = OpenTest();
        List<Activity> spans;
        using (db)
        {
            spans = await TraceAsync(async () =>
            {
                Assert.ThrowsAny<System.Data.Common.DbException>(() => db.Execute("select * from no_such_table where name = 'secret-value'"));
                await Assert.ThrowsAsync<MappingException>(async () => await db.StreamAsync<int>("select name from items").ToListAsync());
                source.Failure = () => new InvalidOperationException("secret-message");
                Assert.Throws<InvalidOperationException>(() => db.Query<string>("select name from items"));
                Assert.Throws<InvalidOperationException>(() => db.QueryMultiple("select 1; select 2"));
            });
        }

        List<Activity> calls = [.. spans.Where(s => s.DisplayName != CallSpans.OpenName)];
        Assert.Equal(
            ["Microsoft.Data.Sqlite.SqliteException", "Orseis.MappingException", "System.InvalidOperationException", "System.InvalidOperationException"],
            calls.Select(c => c.GetTagItem("error.type")));
        Assert.All(calls, c => Assert.Equal(ActivityStatusCode.Error, c.Status));
        Assert.All(calls, c => Assert.Equal(c.GetTagItem("error.type"), c.StatusDescription));

        // The failed opens are failed children; the successful ones are not marked.
        List<Activity> opens = [.. spans.Where(s => s.DisplayName == CallSpans.OpenName)];
        Assert.Equal(4, opens.Count);
        Assert.Equal([ActivityStatusCode.Unset, ActivityStatusCode.Unset, ActivityStatusCode.Error, ActivityStatusCode.Error], opens.Select(o => o.Status));
        Assert.DoesNotContain(spans.SelectMany(s => s.TagObjects), t => t.Value?.ToString()?.Contains("secret", StringComparison.Ordinal) == true);
        Assert.DoesNotContain(spans, s => s.StatusDescription?.Contains("secret", StringComparison.Ordinal) == true);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task A_cancelled_call_or_stream_ends_its_span_as_failed_with_the_cancellation_type(RunnerKind kind)
    {
        var thrown = new List<Exception>();
        List<Activity> spans = await TraceAsync(async () =>
        {
            using Database db = Open(kind == RunnerKind.ReuseConnection ? ExecutionMode.ReuseConnection : ExecutionMode.OpenPerCall);
            await using Session? session = kind == RunnerKind.Session ? await db.OpenSessionAsync() : null;
            SqlRunner runner = session ?? (SqlRunner)db;
            using (var cancelled = new CancellationTokenSource())
            {
                await cancelled.CancelAsync();
                thrown.Add(await Assert.ThrowsAnyAsync<OperationCanceledException>(() => runner.ScalarAsync<long>("select count(*) from items", cancellationToken: cancelled.Token)));
            }

            using (var cancelled = new CancellationTokenSource())
            {
                await cancelled.CancelAsync();
                thrown.Add(await Assert.ThrowsAnyAsync<OperationCanceledException>(async () =>
                {
                    await foreach (string _ in runner.StreamAsync<string>("select name from items").WithCancellation(cancelled.Token))
                    {
                    }
                }));
            }

            Assert.Equal(3, await runner.ScalarAsync<long>("select count(*) from items")); // the runner is usable after
        });

        List<Activity> calls = [.. spans.Where(s => s.DisplayName == "SELECT items")];
        Assert.Equal(3, calls.Count);
        Assert.Equal([ActivityStatusCode.Error, ActivityStatusCode.Error, ActivityStatusCode.Unset], calls.Select(c => c.Status));
        Assert.Equal([thrown[0].GetType().FullName, thrown[1].GetType().FullName, null], calls.Select(c => c.GetTagItem("error.type")));
    }

    [Fact]
    public async Task Spans_carry_the_server_and_database_and_a_procedure_is_named_after_itself()
    {
        const string ConnectionString = "Host=db.example.com;Port=5433;Database=shop;Username=alice;Password=hunter2";
        List<Activity> spans = await TraceAsync(() =>
        {
            using var telemetry = new PoolTelemetry(Pool, "postgresql", 100, new DiagnosticsOptions(), connectionString: ConnectionString);
            OrseisActivitySource.Stop(telemetry.Spans.StartCall("select * from users", null));
            OrseisActivitySource.Stop(telemetry.Spans.StartCall("get_user", new ParameterBag { CommandType = CommandType.StoredProcedure }));
            OrseisActivitySource.Stop(telemetry.Spans.StartCall("with a as (select 1) select * from a", null));
            OrseisActivitySource.Stop(telemetry.Spans.StartCall("select * from users u join orders o on o.user_id = u.id", null));
            return Task.CompletedTask;
        });

        // A single-table statement by its summary; a join (no summary) by its operation and the database.
        Assert.Equal(["SELECT users", "get_user", "shop", "SELECT shop"], spans.Select(s => s.DisplayName));
        Assert.Equal("get_user", spans[1].GetTagItem("db.stored_procedure.name"));
        Assert.Null(spans[1].GetTagItem("db.operation.name"));
        foreach (Activity span in spans)
        {
            Assert.Equal("db.example.com", span.GetTagItem("server.address"));
            Assert.Equal(5433, span.GetTagItem("server.port"));
            Assert.Equal("shop", span.GetTagItem("db.namespace"));
            Assert.Equal("postgresql", span.GetTagItem("db.system.name"));
            Assert.DoesNotContain(span.TagObjects, t => t.Value is "alice" or "hunter2");
        }
    }

    [Theory]
    [InlineData("select 1", "SELECT")]
    [InlineData("  INSERT into t values (1);  ", "INSERT")]
    [InlineData("-- note\n/* block */ Update t set a = 1", "UPDATE")]
    [InlineData("delete from t; -- done", "DELETE")]
    [InlineData("select 1; select 2", null)]
    [InlineData("with a as (select 1) select * from a", null)]
    [InlineData("selection", null)]
    [InlineData("", null)]
    [InlineData("/* unterminated", null)]
    public void The_operation_is_the_first_keyword_of_a_single_statement(string sql, string? operation)
    {
        int found = SqlOperation.Find(sql);
        Assert.Equal(operation, found < 0 ? null : SqlOperation.Names[found]);
    }

    [Fact]
    public void A_listener_that_throws_never_breaks_a_call()
    {
        using var listener = new ActivityListener
        {
            ShouldListenTo = s => s.Name == OrseisActivitySource.Name,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStarted = _ => throw new InvalidOperationException("listener bug"),
            ActivityStopped = _ => throw new InvalidOperationException("listener bug"),
        };
        ActivitySource.AddActivityListener(listener);
        using Database db = Open();
        using (Session session = db.OpenSession())
            Assert.Equal(3, session.Query<string>("select name from items").Count);
        Assert.Equal(3, db.Query<string>("select name from items").Count);
        Assert.Equal(3, db.Stream<string>("select name from items").Count());
        Assert.Null(Activity.Current);
    }

    /// <summary>Runs <paramref name="work"/> under an OpenTelemetry TracerProvider for the Orseis source; returns this pool's spans in the order they ended.</summary>
    private async Task<List<Activity>> TraceAsync(Func<Task> work)
    {
        var exported = new List<Activity>();
        using (TracerProvider provider = Sdk.CreateTracerProviderBuilder().AddSource(OrseisActivitySource.Name, Caller.Name).AddInMemoryExporter(exported).Build())
        {
            await work();
            Assert.True(provider.ForceFlush(10_000));
        }

        return [.. exported.Where(a => a.Source.Name == OrseisActivitySource.Name && Equals(a.GetTagItem("db.client.connection.pool.name"), Pool))];
    }
}
