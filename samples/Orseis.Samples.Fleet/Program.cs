// Fleet: one instance of an app whose pool a Prometheus watches next to its siblings' (docs/fleet.md).
//
//   dotnet run --project samples/Orseis.Samples.Fleet -- --mysql "Server=...;Database=..." --port 9464
//
// It holds --sessions connections open (a long-lived consumer), runs --workers callers that each make one call after
// another, every call holding its connection --hold-ms, and serves its meters at http://127.0.0.1:PORT/metrics until
// --duration seconds have passed or it gets SIGINT or SIGTERM.
using System.Runtime.InteropServices;
using MySqlConnector;
using Npgsql;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using Orseis;
using Orseis.Diagnostics;
using Orseis.Samples.Fleet;

FleetOptions options;
try
{
    options = FleetOptions.Parse(args);
}
catch (ArgumentException error)
{
    Console.Error.WriteLine($"fleet: {error.Message}");
    Console.Error.WriteLine(FleetOptions.Usage);
    return 2;
}

using var stop = new CancellationTokenSource();
if (options.DurationSeconds > 0)
    stop.CancelAfter(TimeSpan.FromSeconds(options.DurationSeconds));
using PosixSignalRegistration sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, Stop);
using PosixSignalRegistration sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, Stop);

(System.Data.Common.DbProviderFactory factory, string providerMeter) = options.Postgres
    ? ((System.Data.Common.DbProviderFactory)NpgsqlFactory.Instance, "Npgsql")
    : (MySqlConnectorFactory.Instance, "MySqlConnector");

// The Orseis meter, the provider's own (its pool's connections, under the conventional names: see docs/diagnostics.md)
// and the runtime's (the thread pool's queue), served for a Prometheus to scrape.
using MeterProvider meters = Sdk.CreateMeterProviderBuilder()
    .AddMeter("Orseis", providerMeter, "System.Runtime")
    .AddPrometheusHttpListener(o =>
    {
        o.Host = "127.0.0.1";
        o.Port = options.Port;
    })
    .Build();

await using var db = new Database(factory, options.ConnectionString, new OrseisOptions
{
    PoolName = options.PoolName,
    Diagnostics = { Detectors = FindingKind.All },
});

var held = new List<Session>();
for (int i = 0; i < options.Sessions; i++)
    held.Add(await db.OpenSessionAsync(stop.Token));

Console.WriteLine($"ready pid={Environment.ProcessId} port={options.Port} pool={options.PoolName} sessions={options.Sessions} "
    + $"workers={options.Workers} provider={providerMeter}");
long calls = 0;
string sql = options.Postgres ? "select pg_sleep(@s)::text" : "select sleep(@s)";
var seconds = new { s = options.HoldMs / 1000.0 };
Task[] workers = [.. Enumerable.Range(0, options.Workers).Select(_ => Task.Run(async () =>
{
    while (!stop.IsCancellationRequested)
    {
        try
        {
            await db.ScalarAsync<string>(sql, seconds, cancellationToken: stop.Token);
            Interlocked.Increment(ref calls);
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
        }
        catch (PoolExhaustedException error)
        {
            Console.Error.WriteLine($"pool exhausted: {error.GetType().Name}"); // counted as db.client.connection.timeouts
        }
    }
}))];

try
{
    await Task.Delay(Timeout.Infinite, stop.Token);
}
catch (OperationCanceledException)
{
}

await Task.WhenAll(workers);
foreach (Session session in held)
    await session.DisposeAsync();
Console.WriteLine($"done: {calls} calls");
Console.WriteLine(db.GetPoolReport());
return 0;

void Stop(PosixSignalContext context)
{
    context.Cancel = true;
    stop.Cancel();
}
