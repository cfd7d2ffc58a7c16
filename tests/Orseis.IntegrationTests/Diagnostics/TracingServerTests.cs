using System.Data.Common;
using System.Diagnostics;
using System.Globalization;
using Orseis.IntegrationTests.Infrastructure;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;

namespace Orseis.IntegrationTests.Diagnostics;

/// <summary>
/// Orseis' spans against real servers, exported through the OpenTelemetry SDK together with the provider's own
/// (Npgsql, MySqlConnector): the server, port and database come from the connection string, the provider's spans nest
/// under Orseis' (which are then Internal, the provider's command span being the one Client span of a call), and a server
/// error is typed by its SQLSTATE.
/// </summary>
public sealed class TracingServerTests
{
    [PostgresFact]
    public Task Postgres_spans_name_the_server_and_database() =>
        Spans_name_the_server_and_database(new PostgresDialect(), "postgresql", "Npgsql", "Host", "42P01");

    [MySqlFact]
    public Task MariaDb_spans_name_the_server_and_database() =>
        Spans_name_the_server_and_database(new MySqlDialect(), "mysql", "MySqlConnector", "Server", "1146");

    /// <summary>
    /// SQL Server's status code is the error number (208: invalid object name), read from SqlClient's
    /// <c>SqlException.Number</c>, on the span and on the operation duration. The provider's own spans are not checked
    /// here: SqlClient traces through DiagnosticListener, not an ActivitySource.
    /// </summary>
    [SqlServerFact]
    public void SqlServer_failure_is_typed_by_its_error_number()
    {
        var exported = new List<Activity>();
        var metrics = new List<Metric>();
        string pool = "traced-" + Guid.NewGuid().ToString("N")[..8];
        var dialect = new SqlServerDialect();
        using (TracerProvider provider = Sdk.CreateTracerProviderBuilder().AddSource("Orseis").AddInMemoryExporter(exported).Build())
        using (MeterProvider meters = Sdk.CreateMeterProviderBuilder().AddMeter("Orseis")
            .AddInMemoryExporter(metrics).Build())
        {
            using var db = new Database(dialect.Factory, dialect.ConnectionString, new OrseisOptions { PoolName = pool });
            var error = Assert.IsType<Microsoft.Data.SqlClient.SqlException>(
                Assert.ThrowsAny<DbException>(() => db.Execute("select * from orseis_no_such_table")));
            Assert.Equal(208, error.Number);
            Assert.True(provider.ForceFlush(10_000));
            Assert.True(meters.ForceFlush(10_000));
        }

        Activity failed = Assert.Single(exported, a => a.Status == ActivityStatusCode.Error
            && Equals(a.GetTagItem("db.client.connection.pool.name"), pool));
        Assert.Equal("208", failed.GetTagItem("error.type"));
        Assert.Equal("208", failed.GetTagItem("db.response.status_code"));
        var codes = new List<object?>();
        foreach (Metric metric in metrics.Where(m => m.Name == "db.client.operation.duration"))
        {
            foreach (ref readonly MetricPoint point in metric.GetMetricPoints())
            {
                foreach (KeyValuePair<string, object?> tag in point.Tags)
                {
                    if (tag.Key == "db.response.status_code")
                        codes.Add(tag.Value);
                }
            }
        }

        Assert.Contains("208", codes);
    }

    [PostgresFact]
    public Task Postgres_call_is_the_client_span_when_npgsql_is_not_recorded() =>
        Call_is_the_client_span_when_the_provider_is_not_recorded(new PostgresDialect());

    [MySqlFact]
    public Task MariaDb_call_is_the_client_span_when_mysqlconnector_is_not_recorded() =>
        Call_is_the_client_span_when_the_provider_is_not_recorded(new MySqlDialect());

    /// <summary>
    /// Only Orseis recorded (the provider's source not added): each call is one Client span, the pool wait Internal. The
    /// same process records the provider's spans in other tests, so the kind is decided per call, not once.
    /// </summary>
    private static async Task Call_is_the_client_span_when_the_provider_is_not_recorded(Dialect dialect)
    {
        var exported = new List<Activity>();
        string pool = "traced-" + Guid.NewGuid().ToString("N")[..8];
        using (TracerProvider provider = Sdk.CreateTracerProviderBuilder().AddSource("Orseis").AddInMemoryExporter(exported).Build())
        {
            await using var db = new Database(dialect.Factory, dialect.ConnectionString, new OrseisOptions { PoolName = pool });
            Assert.Equal(1, await db.ScalarAsync<int>("select 1"));
            Assert.Equal(2, db.Scalar<int>("select 2"));
            Assert.True(provider.ForceFlush(10_000));
        }

        List<Activity> mine = [.. exported.Where(a => Equals(a.GetTagItem("db.client.connection.pool.name"), pool))];
        List<Activity> calls = [.. mine.Where(a => a.DisplayName.StartsWith("SELECT", StringComparison.Ordinal))];
        Assert.Equal(2, calls.Count);
        Assert.All(mine, span => Assert.Equal(calls.Contains(span) ? ActivityKind.Client : ActivityKind.Internal, span.Kind));
    }

    private static async Task Spans_name_the_server_and_database(Dialect dialect, string system, string providerSource, string hostKey, string missingTable)
    {
        var settings = new DbConnectionStringBuilder { ConnectionString = dialect.ConnectionString };
        string host = (string)settings[hostKey];
        int port = int.Parse((string)settings["Port"], CultureInfo.InvariantCulture);
        string database = (string)settings["Database"];

        var exported = new List<Activity>();
        string pool = "traced-" + Guid.NewGuid().ToString("N")[..8];
        using (TracerProvider provider = Sdk.CreateTracerProviderBuilder().AddSource("Orseis", providerSource).AddInMemoryExporter(exported).Build())
        {
            await using var db = new Database(dialect.Factory, dialect.ConnectionString, new OrseisOptions { PoolName = pool });
            Assert.Equal(1, await db.ScalarAsync<int>("select 1"));
            Assert.ThrowsAny<DbException>(() => db.Execute("select * from orseis_no_such_table"));
            await using (Session session = await db.OpenSessionAsync())
                Assert.Equal(2, session.Scalar<int>("select 2"));
            Assert.True(provider.ForceFlush(10_000));
        }

        List<Activity> mine = [.. exported.Where(a => a.Source.Name == "Orseis" && Equals(a.GetTagItem("db.client.connection.pool.name"), pool))];
        List<Activity> calls = [.. mine.Where(a => a.DisplayName.StartsWith("SELECT", StringComparison.Ordinal))];
        Assert.Equal(3, calls.Count);
        foreach (Activity span in mine)
        {
            // The provider's spans are recorded too, so its command span is the call to the database (Client) and every
            // Orseis span is Internal: the call, the pool waits and the session's open.
            Assert.Equal(ActivityKind.Internal, span.Kind);
            Assert.Equal(system, span.GetTagItem("db.system.name"));
            Assert.Equal(host, span.GetTagItem("server.address"));
            Assert.Equal(port, span.GetTagItem("server.port"));
            Assert.Equal(database, span.GetTagItem("db.namespace"));
        }

        // "select 1" names no table: operation and database; the missing table's statement is named by its summary.
        Assert.Equal([$"SELECT {database}", "SELECT orseis_no_such_table", $"SELECT {database}"], calls.Select(c => c.DisplayName));
        Assert.Equal([ActivityStatusCode.Unset, ActivityStatusCode.Error, ActivityStatusCode.Unset], calls.Select(c => c.Status));
        Assert.Equal(missingTable, calls[1].GetTagItem("error.type"));
        Assert.Equal(missingTable, calls[1].GetTagItem("db.response.status_code"));

        // The session's open, the pool waits, and the provider's own spans, each under the Orseis span that caused it.
        Activity sessionOpen = Assert.Single(mine, a => a.DisplayName == "orseis.session.open");
        List<Activity> opens = [.. mine.Where(a => a.DisplayName == "orseis.connection.open")];
        Assert.Equal(3, opens.Count);
        Assert.Equal([calls[0].SpanId, calls[1].SpanId, sessionOpen.SpanId], opens.Select(o => o.ParentSpanId));
        // The provider's spans in Orseis' traces: each under the Orseis span that caused it, a command under its call, and
        // whatever the provider does to hand out a connection (Npgsql's CONNECT for a physical connect, MySqlConnector's Open
        // for every open) under the pool wait, where it is the only Client span.
        List<Activity> providers = [.. exported.Where(a => a.Source.Name == providerSource && mine.Any(m => m.TraceId == a.TraceId))];
        Assert.NotEmpty(providers);
        Assert.All(providers, p => Assert.Contains(mine, m => m.SpanId == p.ParentSpanId));
        Assert.All(calls, call => Assert.Contains(providers, p => p.ParentSpanId == call.SpanId));
        Assert.All(calls, call => Assert.Single(providers, p => p.ParentSpanId == call.SpanId && p.Kind == ActivityKind.Client));
        List<Activity> underOpens = [.. providers.Where(p => opens.Any(o => o.SpanId == p.ParentSpanId))];
        Assert.All(underOpens, p => Assert.Equal(ActivityKind.Client, p.Kind));
        Assert.DoesNotContain(underOpens, p => providers.Any(c => calls.Any(call => call.SpanId == c.ParentSpanId) && c.DisplayName == p.DisplayName));
        if (providerSource == "MySqlConnector")
            Assert.All(opens, o => Assert.Equal("Open", Assert.Single(underOpens, p => p.ParentSpanId == o.SpanId).DisplayName));
        else
            Assert.All(underOpens, p => Assert.StartsWith("CONNECT", p.DisplayName, StringComparison.Ordinal));
    }
}
