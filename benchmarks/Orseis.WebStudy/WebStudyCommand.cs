using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Orseis.Scenarios.ColdStart;
using Orseis.Scenarios.Scopes;
using Orseis.Testing;

namespace Orseis.WebStudy;

/// <summary>
/// The study: one app process (this program, <see cref="WebStudyApp"/>) on a free loopback port, a warm-up of every
/// endpoint, then rounds in which hey loads each strategy's endpoint of each shape for the same time, one after another,
/// in an order that turns each round (percall, session, scope; then session, scope, percall; ...), so each comparison is
/// made side by side in time.
/// </summary>
internal static class WebStudyCommand
{
    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web)
    {
        WriteIndented = true,
        NumberHandling = System.Text.Json.Serialization.JsonNumberHandling.AllowNamedFloatingPointLiterals,
    };

    public static async Task<int> RunAsync(int rounds, int seconds, Shape[] shapes, bool detectors, int maxMinutes, string? output)
    {
        DateTimeOffset started = DateTimeOffset.UtcNow;
        var clock = Stopwatch.StartNew();
        double? loadBefore = MachineState.LoadAverage();
        string? commit = MachineState.Commit(RepositoryRootOrHere()); // the code as the run starts
        using ThrowawayMariaDb? own = Environment.GetEnvironmentVariable("ORSEIS_MYSQL") is { Length: > 0 } ? null : StartServer();
        string connectionString = own?.ConnectionString ?? Scenarios.Server.ConnectionString;
        (string version, int? pid) = await MachineState.ServerAsync(connectionString);
        if (Environment.GetEnvironmentVariable("ORSEIS_MYSQL_PID") is not { Length: > 0 } && pid is { } found)
            Environment.SetEnvironmentVariable("ORSEIS_MYSQL_PID", found.ToString(CultureInfo.InvariantCulture)); // CpuClock reads it
        bool serverCounted = Environment.GetEnvironmentVariable("ORSEIS_MYSQL_PID") is { Length: > 0 };

        int loads = rounds * shapes.Length * Shape.Strategies.Length;
        Console.Error.WriteLine(Invariant($"{loads} loads of {seconds} s: about {loads * (seconds + 2) / 60.0:0.0} min, {maxMinutes} at most"));
        string dll = typeof(WebStudyCommand).Assembly.Location;
        await using SlowAppProcess app = await SlowAppProcess.StartAsync(
            dll, new SlowAppConfig("mysqlconnector", "async", MinThreads: null), maxPool: 100, connectionString,
            new Dictionary<string, string> { ["WEBSTUDY_ROLE"] = "app", ["WEBSTUDY_DETECTORS"] = detectors ? "all" : "none" });

        // Warm: the code jitted, the thread pool grown, each pool filled to what its load takes.
        foreach (Shape shape in shapes)
        {
            foreach (string strategy in Shape.Strategies)
                await HeySummary.RunAsync(Url(app, shape, strategy), shape.Clients, null, shape.Clients * 20, TimeSpan.FromMinutes(2));
        }

        var results = new List<LoadResult>();
        bool cut = false;
        for (int round = 1; round <= rounds && !cut; round++)
        {
            foreach (Shape shape in shapes)
            {
                int turn = (round - 1) % Shape.Strategies.Length;
                string[] order = [.. Shape.Strategies.Skip(turn), .. Shape.Strategies.Take(turn)];
                for (int i = 0; i < order.Length; i++)
                {
                    if (clock.Elapsed > TimeSpan.FromMinutes(maxMinutes))
                    {
                        cut = true;
                        break;
                    }

                    LoadResult r = await MeasureAsync(app, shape, order[i], round, i + 1, seconds);
                    results.Add(r);
                    Console.Error.WriteLine(
                        Invariant($"round {round}, {shape.Name}, {r.Strategy}: {r.RequestsPerSecond:0} req/s, p99 {r.P99Ms:0.0} ms, ") +
                        Invariant($"failed {r.Failed}, opens/request {r.OpensPerRequest:0.00}, load {r.LoadAverage:0.00}, ") +
                        Invariant($"others' CPU {r.OthersBusy * 100:0} % ({clock.Elapsed.TotalMinutes:0.0} min)"));
                }

                if (cut)
                    break;
            }
        }

        var result = new WebStudyResult(
            started, clock.Elapsed.TotalMinutes, commit, Environment.ProcessorCount, MachineState.CpuModel(),
            ".NET " + Environment.Version, "MariaDB " + version, serverCounted, rounds, seconds, detectors, cut, loadBefore, MachineState.LoadAverage(),
            [.. shapes.Select(s => Summarize(s, results))], [.. results]);
        string markdown = WebStudyReport.Markdown(result);
        Console.Write(markdown);
        if (output is not null)
        {
            string? folder = Path.GetDirectoryName(Path.GetFullPath(output));
            if (folder is not null)
                Directory.CreateDirectory(folder);
            await File.WriteAllTextAsync(output + ".md", markdown);
            await File.WriteAllTextAsync(output + ".json", JsonSerializer.Serialize(result, Json) + "\n");
            Console.Error.WriteLine($"wrote {output}.md and {output}.json");
        }

        return 0;
    }

    private static async Task<LoadResult> MeasureAsync(SlowAppProcess app, Shape shape, string strategy, int round, int order, int seconds)
    {
        await Task.Delay(TimeSpan.FromMilliseconds(500)); // the previous load's connections back in their pools, parked ones too
        EndpointReport before = await ReportAsync(app, shape, strategy);
        double? load = MachineState.LoadAverage();
        CpuClock.Reading start = CpuClock.Read(app.Id);
        TimeSpan duration = TimeSpan.FromSeconds(seconds);
        HeySummary hey = await HeySummary.RunAsync(Url(app, shape, strategy), shape.Clients, duration, 0, duration + TimeSpan.FromSeconds(60));
        CpuClock.Reading end = CpuClock.Read(app.Id);
        EndpointReport after = await ReportAsync(app, shape, strategy);

        long answered = after.Answered - before.Answered;
        double? busy = Share(end.MachineBusy - start.MachineBusy, end.MachineTotal - start.MachineTotal);
        double? ours = (end.App - start.App) + (end.Server - start.Server ?? 0) + (end.Children - start.Children);
        double? others = Share(end.MachineBusy - start.MachineBusy - ours, end.MachineTotal - start.MachineTotal);
        return new LoadResult(
            shape.Name, strategy, round, order, hey.OkPerSecond, hey.Ok, Math.Max(hey.Failed, after.Failed - before.Failed), hey.P50Seconds * 1000,
            hey.P99Seconds * 1000, PerRequest(after.Opens - before.Opens, answered), PerRequest(after.ScopeReuses - before.ScopeReuses, answered),
            answered > 0 && after.ParkedMs is { } parked ? (parked - (before.ParkedMs ?? 0)) / answered : double.NaN, load, busy, others);
    }

    private static ShapeSummary Summarize(Shape shape, List<LoadResult> results)
    {
        LoadResult[] mine = [.. results.Where(r => r.Shape == shape.Name)];
        StrategySummary[] strategies =
        [
            .. Shape.Strategies.Select(s => mine.Where(r => r.Strategy == s).ToArray()).Where(rows => rows.Length > 0).Select(rows =>
                new StrategySummary(
                    rows[0].Strategy, Spread.Of(rows.Select(r => r.RequestsPerSecond)), Spread.Of(rows.Select(r => r.P99Ms)),
                    rows.Sum(r => r.Failed), Spread.Of(rows.Select(r => r.OpensPerRequest)), Spread.Of(rows.Select(r => r.ReusesPerRequest)),
                    Spread.Of(rows.Select(r => r.ParkedMsPerRequest)))),
        ];
        RatioSummary[] ratios =
        [
            Ratio(mine, "scope", "percall"), Ratio(mine, "scope", "session"), Ratio(mine, "session", "percall"),
        ];
        return new ShapeSummary(shape.Name, shape.Description, shape.MaxPoolSize, shape.Clients, strategies, ratios);
    }

    /// <summary><paramref name="over"/>'s requests/s over <paramref name="under"/>'s, in each round both ran.</summary>
    private static RatioSummary Ratio(LoadResult[] rows, string over, string under) =>
        new($"{over} / {under}", Spread.Of(
            from a in rows
            where a.Strategy == over
            join b in rows.Where(r => r.Strategy == under) on a.Round equals b.Round
            where b.RequestsPerSecond > 0
            select a.RequestsPerSecond / b.RequestsPerSecond));

    private static async Task<EndpointReport> ReportAsync(SlowAppProcess app, Shape shape, string strategy)
    {
        EndpointReport[] all = JsonSerializer.Deserialize<EndpointReport[]>(await app.GetStringAsync("report"), Json)
                               ?? throw new InvalidDataException("The app's /report was empty.");
        return all.Single(r => r.Key == shape.Key(strategy));
    }

    private static Uri Url(SlowAppProcess app, Shape shape, string strategy) => new(app.Root, shape.Path(strategy).TrimStart('/'));

    private static ThrowawayMariaDb StartServer()
    {
        Console.Error.WriteLine("ORSEIS_MYSQL is not set: starting a throwaway MariaDB (scripts/mariadb-start.sh)");
        try
        {
            return new ThrowawayMariaDb("webstudy");
        }
        catch (Exception error) when (error is InvalidOperationException or TimeoutException or System.ComponentModel.Win32Exception)
        {
            throw new Scenarios.ScenarioSetupException(
                "Set ORSEIS_MYSQL to a MariaDB connection string, or install Debian's mariadb-server for a throwaway one: " + error.Message);
        }
    }

    private static string RepositoryRootOrHere()
    {
        try
        {
            return RepositoryRoot.Find();
        }
        catch (InvalidOperationException)
        {
            return Environment.CurrentDirectory;
        }
    }

    private static double PerRequest(long count, long requests) => requests > 0 ? (double)count / requests : double.NaN;

    private static double? Share(double? part, double? whole) => part is { } p && whole is > 0 and { } w ? p / w : null;

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
