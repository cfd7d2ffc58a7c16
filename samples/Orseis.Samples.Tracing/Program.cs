// Orseis' spans exported through the OpenTelemetry SDK: one client span per call, named by its operation, with the
// pool wait (opening a connection) as a child span, under the application's own activity.
// A real application adds an exporter instead of the in-memory one (AddOtlpExporter, AddConsoleExporter).
// Run: dotnet run --project samples/Orseis.Samples.Tracing
using System.Diagnostics;
using Microsoft.Data.Sqlite;
using OpenTelemetry;
using OpenTelemetry.Trace;
using Orseis;

var app = new ActivitySource("Shop");
var spans = new List<Activity>();
string file = Path.Combine(Path.GetTempPath(), $"orseis-tracing-{Guid.NewGuid():N}.db");

using (TracerProvider tracing = Sdk.CreateTracerProviderBuilder()
           .AddSource("Shop")
           .AddSource("Orseis") // every Orseis call, stream, grid reader and session open
           .AddInMemoryExporter(spans)
           .Build())
{
    var options = new OrseisOptions { PoolName = "shop" };
    options.Diagnostics.CaptureCommandText = true; // db.query.text: off by default, SQL text can carry literals
    await using var db = new Database(SqliteFactory.Instance, $"Data Source={file}", options);
    db.Execute("create table orders (id integer primary key, total real not null)");

    using (Activity? request = app.StartActivity("GET /orders"))
    {
        await db.ExecuteAsync("insert into orders (id, total) values (@id, @total)", new[] { new { id = 1, total = 12.5 }, new { id = 2, total = 40.0 } });
        await foreach (double total in db.StreamAsync<double>("select total from orders order by id"))
            Console.WriteLine($"total {total}");
        try
        {
            db.Scalar<int>("select count(*) from no_such_table");
        }
        catch (SqliteException)
        {
            // The span says the call failed: status Error, error.type.
        }
    }
}

// Spans end children first; print them as a tree under their parents.
foreach (Activity root in spans.Where(s => !spans.Any(p => p.SpanId == s.ParentSpanId)).OrderBy(s => s.StartTimeUtc))
    Print(root, 0);
File.Delete(file);

void Print(Activity span, int depth)
{
    string tags = string.Join(", ", span.TagObjects.Select(t => $"{t.Key}={t.Value}"));
    string status = span.Status == ActivityStatusCode.Error ? $" [Error: {span.StatusDescription}]" : "";
    Console.WriteLine($"{new string(' ', depth * 2)}{span.DisplayName} ({span.Kind}){status} {tags}");
    foreach (Activity child in spans.Where(s => s.ParentSpanId == span.SpanId).OrderBy(s => s.StartTimeUtc))
        Print(child, depth + 1);
}
