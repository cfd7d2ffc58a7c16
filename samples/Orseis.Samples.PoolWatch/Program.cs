// PoolWatch: runs a steady database load through Orseis so you can watch its pool live from outside:
//
//   dotnet run --project samples/Orseis.Samples.PoolWatch -- --rate 50 --concurrency 4 --mode OpenPerCall
//   dotnet-counters monitor --counters Orseis -n Orseis.Samples.PoolWatch
//
// Options (all optional):
//   --rate N           calls per second, all workers together (default 50)
//   --concurrency N    workers running calls side by side (default 4)
//   --mode M           OpenPerCall (a pool checkout per call) or ReuseConnection (one shared connection) (default OpenPerCall)
//   --duration S       stop after S seconds (default: run until Ctrl+C)
//   --hold-ms N        extra time each call keeps its connection, to make the pool visibly busy (default 0)
//   --postgres CS      use PostgreSQL (an Npgsql connection string) instead of a temporary SQLite file
//   --report S         print Database.GetPoolReport() every S seconds (default 10; 0 = only at the end)
using System.Diagnostics;
using System.Globalization;
using Microsoft.Data.Sqlite;
using Npgsql;
using Orseis;
using Orseis.Diagnostics;

var options = Options.Parse(args);
using var stop = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) =>
{
    e.Cancel = true; // finish cleanly: print the last report
    stop.Cancel();
};
if (options.Duration is { } duration)
    stop.CancelAfter(duration);

string? sqliteFile = null;
var orseisOptions = new OrseisOptions
{
    Mode = options.Mode,
    PoolName = "poolwatch",
    // Every detector on: the sample exists to be watched. Findings also appear as `orseis.findings` and as events.
    Diagnostics = { Detectors = FindingKind.All, HeldTooLongThreshold = TimeSpan.FromSeconds(10) },
};
Database db;
if (options.Postgres is { } cs)
{
    db = new Database(NpgsqlFactory.Instance, cs, orseisOptions);
}
else
{
    sqliteFile = Path.Combine(Path.GetTempPath(), $"poolwatch-{Environment.ProcessId}.db");
    db = new Database(SqliteFactory.Instance, $"Data Source={sqliteFile};Pooling=True", orseisOptions);
}

await using (db)
{
    await db.ExecuteAsync("create table if not exists items (id integer primary key, name text not null)");
    await db.ExecuteAsync("delete from items");
    for (int i = 1; i <= 10; i++)
        await db.ExecuteAsync("insert into items (id, name) values (@i, @name)", new { i, name = "item " + i });

    // The end-to-end test waits for this exact line before it attaches.
    Console.WriteLine($"ready pid={Environment.ProcessId} mode={options.Mode} rate={options.Rate} concurrency={options.Concurrency} provider={(options.Postgres is null ? "sqlite" : "postgresql")}");

    long calls = 0;
    var clock = Stopwatch.StartNew();
    // Each worker makes calls at rate/concurrency per second on a fixed schedule, so the total rate does not drift.
    TimeSpan interval = TimeSpan.FromSeconds(options.Concurrency / options.Rate);
    Task[] workers = Enumerable.Range(0, options.Concurrency).Select(async w =>
    {
        TimeSpan next = interval * w / options.Concurrency;
        while (!stop.IsCancellationRequested)
        {
            TimeSpan wait = next - clock.Elapsed;
            if (wait > TimeSpan.Zero)
            {
                try
                {
                    await Task.Delay(wait, stop.Token);
                }
                catch (OperationCanceledException)
                {
                    break;
                }
            }

            next += interval;
            try
            {
                if (options.HoldMs > 0)
                {
                    await using Session session = await db.OpenSessionAsync();
                    await session.ScalarAsync<long>("select count(*) from items");
                    await Task.Delay(options.HoldMs);
                }
                else
                {
                    await db.QueryAsync<string>("select name from items where id <= @n", new { n = 5 });
                }

                Interlocked.Increment(ref calls);
            }
            catch (OrseisException e)
            {
                Console.Error.WriteLine(e.Message);
            }
        }
    }).ToArray();

    Task reporting = Task.Run(async () =>
    {
        if (options.ReportEvery <= TimeSpan.Zero)
            return;
        using var timer = new PeriodicTimer(options.ReportEvery);
        try
        {
            while (await timer.WaitForNextTickAsync(stop.Token))
                Console.WriteLine(db.GetPoolReport());
        }
        catch (OperationCanceledException)
        {
        }
    });

    await Task.WhenAll(workers);
    await reporting;
    Console.WriteLine($"done: {calls} calls in {clock.Elapsed.TotalSeconds:0.#} s");
    Console.WriteLine(db.GetPoolReport());
}

if (sqliteFile is not null)
{
    SqliteConnection.ClearAllPools();
    File.Delete(sqliteFile);
}

internal sealed record Options(double Rate, int Concurrency, ExecutionMode Mode, TimeSpan? Duration, int HoldMs, string? Postgres, TimeSpan ReportEvery)
{
    public static Options Parse(string[] args)
    {
        var o = new Options(50, 4, ExecutionMode.OpenPerCall, null, 0, null, TimeSpan.FromSeconds(10));
        for (int i = 0; i < args.Length; i++)
        {
            string value = i + 1 < args.Length ? args[i + 1] : throw new ArgumentException($"{args[i]} needs a value");
            o = args[i] switch
            {
                "--rate" => o with { Rate = double.Parse(value, CultureInfo.InvariantCulture) },
                "--concurrency" => o with { Concurrency = int.Parse(value, CultureInfo.InvariantCulture) },
                "--mode" => o with { Mode = Enum.Parse<ExecutionMode>(value, ignoreCase: true) },
                "--duration" => o with { Duration = TimeSpan.FromSeconds(double.Parse(value, CultureInfo.InvariantCulture)) },
                "--hold-ms" => o with { HoldMs = int.Parse(value, CultureInfo.InvariantCulture) },
                "--postgres" => o with { Postgres = value },
                "--report" => o with { ReportEvery = TimeSpan.FromSeconds(double.Parse(value, CultureInfo.InvariantCulture)) },
                _ => throw new ArgumentException($"Unknown option {args[i]}; see the comment at the top of Program.cs."),
            };
            i++;
        }

        if (o.Rate <= 0 || o.Concurrency <= 0)
            throw new ArgumentException("--rate and --concurrency must be positive.");
        return o;
    }
}
