using System.Diagnostics;
using MySqlConnector;
using Orseis.Scenarios.ColdStart;
using Orseis.Scenarios.Scopes;
using Orseis.Testing;
using static Orseis.Scenarios.ColdStart.StudyText;

namespace Orseis.Scenarios.Capacity;

/// <summary>
/// The capacity study (seeds: "pool-sizing-notes-zh", "thread-pool-hybrid"): how Max Pool Size and the server's way of
/// handling connections shape throughput and latency from 1 to 1024 concurrent clients. For each thread handling a MariaDB
/// of its own starts (scripts/mariadb-start.sh with <c>--thread-handling</c>); for each load, Max Pool Size and client count
/// a fresh SlowApp process (samples/Orseis.Samples.SlowApp, MySqlConnector, async, open per call or a session per request,
/// every detector on) is
/// warmed up and then kept busy by <c>hey</c>; the table gives what the clients got and what Orseis said about the pool.
/// Each point's advice is then followed (<see cref="FollowAsync"/>): rounds at the advised size, at the current one and at
/// a larger one, interleaved, judged by medians with their spreads.
/// </summary>
internal static class CapacityCommand
{
    /// <summary>
    /// MariaDB's thread handlings (the app on MySqlConnector), and <see cref="Postgres"/>: a PostgreSQL (a process per
    /// connection) with the app on Npgsql.
    /// </summary>
    public static readonly string[] Handlings = ["one-thread-per-connection", "pool-of-threads", Postgres];

    /// <summary>
    /// What runs without <c>--handlings</c>: MariaDB's two handlings, the study as documented (176 points); PostgreSQL is
    /// asked for by name.
    /// </summary>
    public static readonly string[] DefaultHandlings = ["one-thread-per-connection", "pool-of-threads"];

    /// <summary>The handling that runs the app on Npgsql against a PostgreSQL of its own (scripts/pg-start.sh).</summary>
    public const string Postgres = "postgresql";

    public static readonly int[] DefaultClients = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

    public static readonly int[] DefaultPools = [4, 16, 64, 256];

    public static async Task<int> RunAsync(
        int[] clients, int[] pools, string[] handlings, CapacityLoad[] loads, int seconds, int maxMinutes, string? output, string? app,
        string[] findings)
    {
        int follow = Environment.GetEnvironmentVariable("ORSEIS_CAPACITY_FOLLOW") is { Length: > 0 } given
            ? int.TryParse(given, System.Globalization.CultureInfo.InvariantCulture, out int rounds) && rounds >= 0
                ? rounds
                : throw new ScenarioSetupException($"ORSEIS_CAPACITY_FOLLOW must be a whole number of rounds (0: do not follow), not '{given}'.")
            : FollowRounds;
        string dll = app ?? SlowAppProcess.BuildApp();
        if (!File.Exists(dll))
            throw new ScenarioSetupException($"--app: {dll} does not exist.");
        int points = handlings.Length * loads.Length * pools.Length * clients.Length;
        Console.Error.WriteLine(Invariant($"{points} points of {seconds} s: about {points * (seconds + 3.5) / 60:0} min, {maxMinutes} at most"));
        var results = new List<CapacityPoint>();
        var clock = Stopwatch.StartNew();
        bool cut = false;
        foreach (string handling in handlings)
        {
            // Room on the server for the largest pool, an advised one (at most about the clients' demand, with its spare
            // connections) and the study's own status connection.
            string options = Invariant($"--thread-handling={handling} --max-connections={2 * Math.Max(pools.Max(), clients.Max()) + 50}");
            using IDisposable server = handling == Postgres ? new CapacityPostgres() : new ThrowawayMariaDb("capacity", options);
            string connectionString = server is CapacityPostgres pg ? pg.ConnectionString : ((ThrowawayMariaDb)server).ConnectionString;
            foreach (CapacityLoad load in loads)
            {
                foreach (int pool in pools)
                {
                    foreach (int count in clients)
                    {
                        if (clock.Elapsed > TimeSpan.FromMinutes(maxMinutes))
                        {
                            cut = true;
                            break;
                        }

                        CapacityPoint point = await MeasureAsync(dll, connectionString, handling, load, pool, count, seconds);
                        if (point.After.RecommendedMaxPoolSize is not null && follow > 0)
                            point = await FollowAsync(dll, connectionString, point, follow, seconds);

                        results.Add(point);
                        Console.Error.WriteLine(
                            Invariant($"{handling}, {load.Name}, pool {pool}, {count} clients: {point.Hey.OkPerSecond:0} ok/s, ") +
                            Invariant($"p50 {point.Hey.P50Seconds * 1000:0.0} ms, p99 {point.Hey.P99Seconds * 1000:0.0} ms, ") +
                            Invariant($"failed {point.Hey.Failed}, queued opens {point.QueuedOpens}, ") +
                            Invariant($"findings {Counts(point.Findings)}; {point.After.PoolSizeAdvice} ({clock.Elapsed.TotalMinutes:0.0} min)"));
                        foreach (SlowAppFinding finding in point.After.Findings.Where(f => findings.Contains(f.Kind, StringComparer.OrdinalIgnoreCase)))
                            Console.Error.WriteLine($"  [{finding.Kind}] {finding.Message}");
                    }
                }
            }
        }

        string text = CapacityTable.Write(results, loads, seconds, clock.Elapsed, cut);
        Console.Write(text);
        if (output is not null)
            await File.WriteAllTextAsync(output, text);
        return 0;
    }

    /// <summary>
    /// Rounds of following the advice by default (ORSEIS_CAPACITY_FOLLOW sets another number): each runs the point at the
    /// advised size, at the current size and at four times the advised size, in an order that turns each round, for medians
    /// and spreads (two runs of one size read up to 1.5x apart on the shared 2-core machine).
    /// </summary>
    public const int FollowRounds = 3;

    /// <summary>
    /// Follows <paramref name="point"/>'s advice: <paramref name="rounds"/> rounds of the advised size, the current size
    /// (again, for its spread) and a larger one (four times the advised size, at most one connection per client, when that
    /// is at least twice it), each a fresh app process, their order turning round by round.
    /// </summary>
    private static async Task<CapacityPoint> FollowAsync(string dll, string connectionString, CapacityPoint point, int rounds, int seconds)
    {
        int advised = point.After.RecommendedMaxPoolSize!.Value;
        int larger = Math.Min(4 * advised, point.Clients) is var l && l >= 2 * advised ? l : advised;
        var followed = new CapacityFollowed(advised, [advised], [point.Hey.OkPerSecond], [], larger, []);
        int[] sizes = [.. new[] { advised, point.Pool, larger }.Distinct()];
        for (int round = 0; round < rounds; round++)
        {
            for (int i = 0; i < sizes.Length; i++)
            {
                int size = sizes[(i + round) % sizes.Length];
                CapacityPoint run = await MeasureAsync(dll, connectionString, point.Handling, point.Load, size, point.Clients, seconds);
                double ok = run.Hey.OkPerSecond;
                if (size == point.Pool)
                {
                    followed.AtCurrent.Add(ok);
                    followed.Advices.Add(run.After.RecommendedMaxPoolSize);
                }

                if (size == advised)
                    followed.AtAdvised.Add(ok);
                else if (size == larger)
                    followed.AtLarger.Add(ok);
                Console.Error.WriteLine(Invariant($"  round {round + 1}, pool {size}: {ok:0} ok/s; {run.After.PoolSizeAdvice}"));
            }
        }

        Console.Error.WriteLine(
            Invariant($"  followed pool {advised}: {followed.Kept:0.00} of pool {point.Pool}") +
            (followed.Beyond is { } beyond ? Invariant($"; pool {larger}: {beyond:0.00} of pool {advised}") : ""));
        return point with { Followed = followed };
    }

    private static async Task<CapacityPoint> MeasureAsync(
        string dll, string connectionString, string handling, CapacityLoad load, int pool, int clients, int seconds)
    {
        var settings = new Dictionary<string, string> { ["SLOWAPP_UNIT"] = load.Unit, ["SLOWAPP_DETECTORS"] = "all" };
        string provider = "mysqlconnector";
        if (handling == Postgres)
        {
            provider = "npgsql";
            settings["ORSEIS_POSTGRES"] = connectionString;
        }

        await using SlowAppProcess process = await SlowAppProcess.StartAsync(
            dll, new SlowAppConfig(provider, "async", MinThreads: null), pool, connectionString, settings);
        var url = new Uri(process.Root, load.Path);

        // Warm: the pool grown to what this load takes, the code jitted, the thread pool grown.
        await HeySummary.RunAsync(url, clients, null, Math.Max(clients * 2, 20), TimeSpan.FromMinutes(3));
        CapacityReport before = CapacityReport.Parse(await process.GetStringAsync("report"));
        TimeSpan duration = TimeSpan.FromSeconds(seconds);
        HeySummary hey = await HeySummary.RunAsync(url, clients, duration, 0, duration + TimeSpan.FromSeconds(90));
        await Task.Delay(TimeSpan.FromMilliseconds(500)); // the detectors' last findings
        CapacityReport after = CapacityReport.Parse(await process.GetStringAsync("report"));
        ServerThreads threads = handling == Postgres
            ? await CapacityPostgres.ThreadsAsync(connectionString)
            : await ThreadsAsync(connectionString);
        return new CapacityPoint(handling, load, pool, clients, hey, before, after, threads);
    }

    /// <summary>
    /// The server's connections (less this one) and thread-pool threads, read together on one connection of its own;
    /// a counter this server lacks reads 0.
    /// </summary>
    private static async Task<ServerThreads> ThreadsAsync(string connectionString)
    {
        var builder = new MySqlConnectionStringBuilder(connectionString) { Pooling = false };
        await using var connection = new MySqlConnection(builder.ConnectionString);
        await connection.OpenAsync();
        await using MySqlCommand command = connection.CreateCommand();
        command.CommandText = "select variable_name, variable_value from information_schema.global_status " +
                              "where variable_name in ('THREADS_CONNECTED', 'THREADPOOL_THREADS')";
        var counters = new Dictionary<string, long>(StringComparer.OrdinalIgnoreCase);
        await using (MySqlDataReader reader = await command.ExecuteReaderAsync())
        {
            while (await reader.ReadAsync())
                counters[reader.GetString(0)] = long.Parse(reader.GetString(1), System.Globalization.CultureInfo.InvariantCulture);
        }

        return new ServerThreads(counters.GetValueOrDefault("THREADS_CONNECTED") - 1, counters.GetValueOrDefault("THREADPOOL_THREADS"));
    }
}
