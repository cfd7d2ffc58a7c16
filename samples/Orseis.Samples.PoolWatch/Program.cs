// PoolWatch: runs a steady database load through Orseis so you can watch its pool live from outside:
//
//   dotnet run --project samples/Orseis.Samples.PoolWatch -- --rate 50 --concurrency 4 --mode OpenPerCall
//   dotnet-counters monitor --counters Orseis -n Orseis.Samples.PoolWatch
//
// Every option is optional; `-- --help` lists them with their defaults. It runs until --duration, Ctrl+C, or `kill -INT` or
// `kill -TERM` of the pid its ready line prints, and then prints its pool report.
using System.CommandLine;
using System.Diagnostics;
using Microsoft.Data.Sqlite;
using MySqlConnector;
using Npgsql;
using Orseis;
using Orseis.Diagnostics;

var rate = new Option<double>("--rate")
{
    Description = "units of work per second, all workers together (calls, with the default --unit 1)",
    DefaultValueFactory = _ => 50,
};
var concurrency = new Option<int>("--concurrency") { Description = "workers running calls side by side", DefaultValueFactory = _ => 4 };
var mode = new Option<ExecutionMode>("--mode")
{
    Description = "OpenPerCall (a pool checkout per call) or ReuseConnection (one shared connection)",
    DefaultValueFactory = _ => ExecutionMode.OpenPerCall,
};
var duration = new Option<double?>("--duration")
{
    Description = "stop after this many seconds (default: run until Ctrl+C, kill -INT or kill -TERM)",
};
var holdMs = new Option<int>("--hold-ms")
{
    Description = "extra milliseconds each call keeps its connection, to make the pool visibly busy",
};
var postgres = new Option<string?>("--postgres")
{
    Description = "use PostgreSQL (an Npgsql connection string) instead of a temporary SQLite file",
};
var mysql = new Option<string?>("--mysql")
{
    Description = "use MariaDB or MySQL (a MySqlConnector connection string) instead of a temporary SQLite file",
};
var setupScope = new Option<bool>("--setup-scope")
{
    Description = "run the set-up's statements (create, delete, ten inserts) in one ConnectionScope: no churn from the set-up",
};
var burst = new Option<int>("--burst")
{
    Description = "after the set-up, this many callers at once, each one call holding its connection --hold-ms (a burst on a cold pool)",
};
var unit = new Option<int>("--unit")
{
    Description = "calls each worker makes back to back per tick: one unit of work (a request's calls)",
    DefaultValueFactory = _ => 1,
};
var scope = new Option<bool>("--scope")
{
    Description = "run each unit of work inside a ConnectionScope (db.BeginScope()), so its calls share one connection",
};
var report = new Option<double>("--report")
{
    Description = "print Database.GetPoolReport() every this many seconds (0 = only at the end)",
    DefaultValueFactory = _ => 10,
};
rate.Validators.Add(r => { if (r.GetValueOrDefault<double>() <= 0) r.AddError("--rate must be positive."); });
concurrency.Validators.Add(r => { if (r.GetValueOrDefault<int>() <= 0) r.AddError("--concurrency must be positive."); });
unit.Validators.Add(r => { if (r.GetValueOrDefault<int>() <= 0) r.AddError("--unit must be positive."); });
var root = new RootCommand("PoolWatch: a steady database load through Orseis, to watch its pool live from outside.")
{
    rate, concurrency, mode, duration, holdMs, postgres, unit, scope, report, mysql, setupScope, burst,
};
// System.CommandLine turns SIGINT (Ctrl+C, `kill -INT`) and SIGTERM (`kill -TERM`) into this token, and gives the run 2 s
// to finish before it ends the process: the workers stop at once and the last report is printed well inside that.
root.SetAction((parse, terminating) => RunAsync(terminating, new Options(
    parse.GetValue(rate), parse.GetValue(concurrency), parse.GetValue(mode),
    parse.GetValue(duration) is { } seconds ? TimeSpan.FromSeconds(seconds) : null,
    parse.GetValue(holdMs), parse.GetValue(postgres), parse.GetValue(unit), parse.GetValue(scope),
    TimeSpan.FromSeconds(parse.GetValue(report)), parse.GetValue(mysql), parse.GetValue(setupScope), parse.GetValue(burst))));
Signals.HearSigIntInBackground();
return await root.Parse(args).InvokeAsync();

static async Task<int> RunAsync(CancellationToken terminating, Options options)
{
    using var stop = CancellationTokenSource.CreateLinkedTokenSource(terminating);
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
    else if (options.MySql is { } mysqlCs)
    {
        db = new Database(MySqlConnectorFactory.Instance, mysqlCs, orseisOptions);
    }
    else
    {
        sqliteFile = Path.Combine(Path.GetTempPath(), $"poolwatch-{Environment.ProcessId}.db");
        db = new Database(SqliteFactory.Instance, $"Data Source={sqliteFile};Pooling=True", orseisOptions);
    }

    await using (db)
    {
        await using (ConnectionScope? setup = options.SetupScope ? db.BeginScope() : null)
        {
            await db.ExecuteAsync("create table if not exists items (id integer primary key, name text not null)");
            await db.ExecuteAsync("delete from items");
            for (int i = 1; i <= 10; i++)
                await db.ExecuteAsync("insert into items (id, name) values (@i, @name)", new { i, name = "item " + i });
        }

        // The end-to-end test waits for this exact line before it attaches.
        string provider = options.Postgres is not null ? "postgresql" : options.MySql is not null ? "mysql" : "sqlite";
        Console.WriteLine($"ready pid={Environment.ProcessId} mode={options.Mode} rate={options.Rate} "
            + $"concurrency={options.Concurrency} provider={provider} unit={options.Unit} scope={options.Scope}");

        long calls = 0;
        // A burst: callers arriving at once, each holding its connection for --hold-ms (new connections, if the pool is cold).
        await Task.WhenAll(Enumerable.Range(0, options.Burst).Select(_ => Task.Run(async () =>
        {
            await using Session session = await db.OpenSessionAsync();
            await session.ScalarAsync<long>("select count(*) from items");
            await Task.Delay(options.HoldMs);
            Interlocked.Increment(ref calls);
        })));

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
                        await using ConnectionScope? unitScope = options.Scope ? db.BeginScope() : null;
                        for (int c = 0; c < options.Unit; c++)
                            await db.QueryAsync<string>("select name from items where id <= @n", new { n = 5 });
                    }

                    Interlocked.Add(ref calls, options.HoldMs > 0 ? 1 : options.Unit);
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

    return 0;
}

internal sealed record Options(
    double Rate, int Concurrency, ExecutionMode Mode, TimeSpan? Duration, int HoldMs, string? Postgres, int Unit, bool Scope,
    TimeSpan ReportEvery, string? MySql, bool SetupScope, int Burst);
