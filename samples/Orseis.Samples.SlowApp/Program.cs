// SlowApp: a web app whose /slow endpoint holds a pooled MariaDB connection for a few seconds, to watch what a burst of
// requests does to a cold pool and a cold thread pool (docs/cold-start.md), and whose /work endpoint makes 1..20 small
// queries per request, with or without a pause between them, per call, in a scope or in a session
// (docs/results/scopes/web-load.md). Settings come from the environment:
//
//   ORSEIS_MYSQL            the server (scripts/mariadb-start.sh prints one)
//   ORSEIS_POSTGRES         the server for npgsql (scripts/pg-start.sh prints one)
//   SLOWAPP_PROVIDER        mysqlconnector (default), mysql-data or npgsql
//   SLOWAPP_CALLS           async (default) or sync: which Orseis calls the endpoint makes
//   SLOWAPP_MIN_THREADS     ThreadPool.SetMinThreads for worker threads (default: the runtime's, one per core)
//   SLOWAPP_MAX_POOL        Maximum Pool Size (default 100, both providers' default)
//   SLOWAPP_UNIT            how /work's calls get a connection: percall (default: open per call), scope (every request
//                           in a ConnectionScope, app.UseOrseisScopes()) or session (a Session per /work request)
//   SLOWAPP_DETECTORS       Orseis' detectors: all (default), none, or FindingKind names (e.g. Churn,Saturation)
//   ASPNETCORE_URLS         where to listen (e.g. http://127.0.0.1:5080)
//
//   hey -n 130 -c 130 -t 0 http://127.0.0.1:5080/slow/5/db
//   hey -z 10s -c 1000 'http://127.0.0.1:5080/work?pauseMs=5'     (1..20 calls by turns; /work/7 makes 7; always async)
//   curl http://127.0.0.1:5080/report                             (?resetPeak=true: the provider's peaks start anew)
using System.Data.Common;
using Orseis;
using Orseis.Samples.SlowApp;

SlowAppSettings settings;
try
{
    settings = SlowAppSettings.FromEnvironment();
}
catch (ArgumentException error)
{
    Console.Error.WriteLine(error.Message);
    return 2;
}

if (settings.MinThreads is { } minThreads)
{
    ThreadPool.GetMinThreads(out _, out int io);
    ThreadPool.SetMinThreads(minThreads, io);
}

DbProviderFactory factory = settings.Provider switch
{
    "mysql-data" => MySql.Data.MySqlClient.MySqlClientFactory.Instance,
    "npgsql" => Npgsql.NpgsqlFactory.Instance,
    _ => MySqlConnector.MySqlConnectorFactory.Instance,
};
string connectionString = settings.ConnectionString.TrimEnd(';') + $";Maximum Pool Size={settings.MaxPool}";
if (settings.Provider == "mysql-data")
    connectionString = Orseis.Testing.MySqlDataOnMariaDb.ConnectionString(connectionString, connectionReset: true);
using var usage = new ProviderUsage(); // before the pool's first connection: it counts changes
await using var db = new Database(factory, connectionString, new OrseisOptions
{
    PoolName = "slowapp",
    CommandTimeout = TimeSpan.FromMinutes(5),
    Diagnostics = { Detectors = settings.Detectors },
});

WebApplicationBuilder builder = WebApplication.CreateBuilder(args);
builder.Logging.ClearProviders();
builder.Services.AddSingleton(db); // UseOrseisScopes finds the database here; the app disposes it itself
WebApplication app = builder.Build();
if (settings.Unit == "scope")
    app.UseOrseisScopes(); // every request below runs in a ConnectionScope of db
var started = DateTimeOffset.UtcNow;

// Answers without touching the database: the study waits for it before the burst.
app.MapGet("/health", () => "ok");

var errors = new SlowAppErrors();
app.MapGet("/slow/{seconds:double}/db", async (double seconds) =>
{
    try
    {
        string sql = settings.Provider == "npgsql" ? "select @seconds from pg_sleep(@seconds)" : "select sleep(@seconds) + @seconds";
        double slept = settings.Sync
            ? db.Scalar<double>(sql, new { seconds })
            : await db.ScalarAsync<double>(sql, new { seconds });
        return Results.Text($"slept {slept:0.###} s");
    }
    catch (Exception error) when (error is DbException or OrseisException)
    {
        // The error's type and message only (Orseis and the providers put no parameter values in them).
        return Results.Text(errors.Add(error), statusCode: StatusCodes.Status503ServiceUnavailable);
    }
});

var work = new WorkEndpoint(db, settings.Unit, errors);
app.MapGet("/work", (int? pauseMs, HttpContext context) => work.HandleAsync(null, pauseMs ?? 0, context.RequestAborted));
app.MapGet("/work/{calls:int}", (int calls, int? pauseMs, HttpContext context) =>
    work.HandleAsync(calls, pauseMs ?? 0, context.RequestAborted));

// What Orseis saw: the pool report, its findings, and the thread pool's size now.
app.MapGet("/report", (bool? resetPeak) =>
{
    IResult report = Results.Json(SlowAppReport.From(db.GetPoolReport(), settings, started, errors, usage.Read(), work));
    if (resetPeak == true)
        usage.ResetPeaks();
    return report;
});

app.Run();
return 0;
