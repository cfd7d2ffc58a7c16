using System.Data.Common;
using System.Diagnostics;
using System.Globalization;
using MySqlConnector;
using Npgsql;
using Orseis.Diagnostics;

namespace Orseis.Scenarios;

/// <summary>
/// The pool-size sweep: judges the advice by following it. For each provider, load and current Max Pool Size, the load
/// runs at the current size with every detector on and the report's RecommendedMaxPoolSize is read; then the same load
/// runs at the advised size and at four times it, the three interleaved and repeated, their order turning each round.
/// The advice holds when the advised size keeps at least 90 % of the throughput at the current size, and four times the
/// advised size passes it by no more than 5 % (the advised size is enough: <see cref="AdviceFollowed"/>). An advice to keep
/// the current size (the CPU is the limit) is judged by four times it alone: keeping a size says it is enough, so four
/// times it passing more refutes it; its run at the advised size measures the noise of two runs of one size. With <c>--curve</c>, the
/// throughput at each size of a list instead.
/// </summary>
internal static class PoolSweep
{
    /// <summary>
    /// A closed loop of <paramref name="Callers"/>: each opens (open per call) or takes a session, runs
    /// <paramref name="Statements"/> statements back to back, each taking <paramref name="StatementMs"/> on the server
    /// (0: <c>select 1</c>), then thinks <paramref name="ThinkMs"/>; <paramref name="Currents"/> are the sizes it is
    /// advised from.
    /// </summary>
    internal sealed record Load(string Name, int Callers, bool Sessions, int Statements, double StatementMs, int ThinkMs, int[] Currents);

    internal static readonly Load[] Loads =
    [
        new("short-percall: 128 async workers, 4 x select 1 back to back, open per call", 128, false, 4, 0, 0, [16, 64]),
        new("short-session: 128 async workers, a session of 4 x select 1", 128, true, 4, 0, 0, [16, 64]),
        new("long-percall: 64 callers, 10 ms statement, 30 ms think, open per call", 64, false, 1, 10, 30, [8, 64]),
        new("long-session: 64 callers, a session of 2 x 5 ms statements, 30 ms think", 64, true, 2, 5, 30, [8, 64]),
    ];

    public static readonly string[] Providers = ["mysqlconnector", "npgsql"];

    public static async Task<int> RunAsync(
        bool quick, string[]? providers, string[]? loadNames, int[]? curve, int repeats, bool fresh = false, int? callers = null, int[]? currents = null)
    {
        TimeSpan point = TimeSpan.FromSeconds(quick ? 1 : 2);
        providers = providers is { Length: > 0 } ? providers : null;
        loadNames = loadNames is { Length: > 0 } ? loadNames : null;
        curve = curve is { Length: > 0 } ? curve : null;
        Load[] loads = loadNames is null ? Loads : [.. Loads.Where(l => loadNames.Any(n => l.Name.StartsWith(n, StringComparison.Ordinal)))];
        if (loads.Length == 0)
            throw new ScenarioSetupException($"--loads: none of {string.Join(", ", loadNames!)} names a load ({string.Join(", ", Loads.Select(l => l.Name.Split(':')[0]))}).");
        loads = [.. loads.Select(l => Resized(l, callers, currents))];
        Console.WriteLine(Invariant($"uptime: {Uptime()}{(fresh ? "; each point in a fresh process" : "")}{(callers is { } n ? $"; {n} callers a load" : "")}"));
        if (curve is not null)
            return await CurveAsync(providers ?? Providers, loads, curve, point, fresh);
        Console.WriteLine("| provider | load | current | advised (runs) | at advised / at current (each round) | at 4x advised (at most one per caller) / at advised | spread current, advised, 4x | client CPU / cores, at current | holds |");
        Console.WriteLine("|---|---|---:|---|---:|---:|---|---:|---|");
        int held = 0, judged = 0;
        foreach (string provider in providers ?? Providers)
        {
            foreach (Load load in loads)
            {
                foreach (int current in load.Currents)
                {
                    var atCurrent = new List<double>();
                    var atAdvised = new List<double>();
                    var atLarger = new List<double>();
                    var advised = new List<int>();
                    var cpus = new List<double>();
                    for (int r = 0; r < repeats; r++)
                    {
                        // The first round runs the current size first (its advice is the one followed); then the order of the
                        // three sizes turns round by round, so that a machine growing busier does not always favour one.
                        for (int step = 0; step < 3; step++)
                        {
                            switch ((step + r) % 3)
                            {
                                case 0:
                                    Point at = await PointAsync(fresh, provider, load, current, point);
                                    atCurrent.Add(at.PerSecond);
                                    cpus.Add(at.Cpu);
                                    advised.Add(at.Advised ?? current);
                                    Console.Error.WriteLine(Invariant($"{provider}, {load.Name}, pool {current}: {at.PerSecond:0}/s; {at.Advice}"));
                                    break;
                                case 1:
                                    atAdvised.Add((await PointAsync(fresh, provider, load, advised[0], point)).PerSecond);
                                    Console.Error.WriteLine(Invariant($"  at {advised[0]}: {atAdvised[^1]:0}/s"));
                                    break;
                                default:
                                    if (Larger(load, advised[0]) is var above && above > advised[0])
                                    {
                                        atLarger.Add((await PointAsync(fresh, provider, load, above, point)).PerSecond);
                                        Console.Error.WriteLine(Invariant($"  at {above}: {atLarger[^1]:0}/s"));
                                    }

                                    break;
                            }
                        }
                    }

                    double keep = Median(atAdvised) / Median(atCurrent);
                    double? larger = atLarger.Count == 0 ? null : Median(atLarger) / Median(atAdvised);
                    bool kept = advised[0] == current;
                    bool ok = AdviceFollowed.Holds(keep, larger, kept);
                    held += ok ? 1 : 0;
                    judged++;
                    string each = string.Join(", ", atAdvised.Zip(atCurrent, (a, c) => Invariant($"{a / c:0.00}")));
                    string spreads = Invariant($"{Spread(atCurrent):0.00}, {Spread(atAdvised):0.00}") +
                                     (atLarger.Count > 0 ? Invariant($", {Spread(atLarger):0.00}") : "");
                    string atFour = larger is { } l ? Invariant($"{l:0.00} (at {Larger(load, advised[0])})") : "– (no caller left for more)";
                    Console.WriteLine(Invariant(
                        $"| {provider} | {load.Name.Split(':')[0]} | {current} | {advised[0]} ({string.Join(", ", advised)}) | {keep:0.00} ({each}) | {atFour} | {spreads} | {Median(cpus):0.00} | {(ok ? "yes" : "no")}{(kept ? " (kept)" : "")} |"));
                }
            }
        }

        Console.WriteLine();
        Console.WriteLine(Invariant($"{held} of {judged} advices held when followed (medians of {repeats} interleaved runs of {point.TotalSeconds:0} s). uptime: {Uptime()}"));
        return 0;
    }

    private static async Task<int> CurveAsync(string[] providers, Load[] loads, int[] sizes, TimeSpan point, bool fresh)
    {
        Console.WriteLine("| provider | load | Max Pool Size | statements/s | client CPU / cores | median hold ms | busy | advised | advice |");
        Console.WriteLine("|---|---|---:|---:|---:|---:|---:|---:|---|");
        foreach (string provider in providers)
        {
            foreach (Load load in loads)
            {
                foreach (int size in sizes)
                {
                    Point at = await PointAsync(fresh, provider, load, size, point);
                    Console.WriteLine(Invariant($"| {provider} | {load.Name.Split(':')[0]} | {size} | {at.PerSecond:0} | {at.Cpu:0.00} | {at.MedianHoldMs:0.###} | {at.MeanInUse:0.##} | {at.Advised} | {at.Advice} |"));
                }
            }
        }

        return 0;
    }

    /// <summary>
    /// One point of the sweep: statements per second, this process's CPU (cores' worth over its cores), and what the
    /// report said (the advised size, its line, the median hold in ms and the mean connections in use).
    /// </summary>
    internal sealed record Point(double PerSecond, double Cpu, int? Advised, string? Advice, double? MedianHoldMs, double? MeanInUse);

    /// <summary>
    /// The load at Max Pool Size <paramref name="size"/>, in this process, or with <paramref name="fresh"/> in a process
    /// started for it (<c>sweep-point</c>): a process that ran other loads first carries their thread pool, and a size
    /// measured after another in one process reads higher (docs/results/capacity/cpu-bound-2026-12-02.md).
    /// </summary>
    internal static async Task<Point> PointAsync(bool fresh, string provider, Load load, int size, TimeSpan duration)
    {
        if (!fresh)
        {
            (double perSecond, PoolReport report, double cpu) = await MeasureAsync(provider, load, size, duration);
            return new Point(perSecond, cpu, report.RecommendedMaxPoolSize, report.PoolSizeAdvice, report.MedianHoldTime?.TotalMilliseconds, report.MeanInUse);
        }

        using Process child = SuiteRunner.StartSelf(
            "sweep-point", "--provider", provider, "--load", load.Name.Split(':')[0], "--size", size.ToString(CultureInfo.InvariantCulture),
            "--seconds", duration.TotalSeconds.ToString(CultureInfo.InvariantCulture), "--callers", load.Callers.ToString(CultureInfo.InvariantCulture));
        Task<string> output = child.StandardOutput.ReadToEndAsync();
        Task<string> errors = child.StandardError.ReadToEndAsync();
        await child.WaitForExitAsync();
        Console.Error.Write(await errors);
        string line = (await output).Trim();
        return child.ExitCode == 0 && System.Text.Json.JsonSerializer.Deserialize<Point>(line) is { } point
            ? point
            : throw new ScenarioSetupException($"sweep-point ({provider}, {load.Name}, {size}) exited {child.ExitCode}: {line}");
    }

    /// <summary>The <c>sweep-point</c> command: one point of the load whose name starts with <paramref name="loadName"/>, printed as one JSON line.</summary>
    internal static async Task<int> PointCommandAsync(string provider, string loadName, int size, double seconds, int? callers = null)
    {
        Load load = Resized(
            Loads.FirstOrDefault(l => l.Name.StartsWith(loadName + ":", StringComparison.Ordinal))
            ?? throw new ScenarioSetupException($"--load: '{loadName}' names no load ({string.Join(", ", Loads.Select(l => l.Name.Split(':')[0]))})."),
            callers, null);
        Point point = await PointAsync(fresh: false, provider, load, size, TimeSpan.FromSeconds(seconds));
        Console.WriteLine(System.Text.Json.JsonSerializer.Serialize(point));
        return 0;
    }

    /// <summary>The load at Max Pool Size <paramref name="size"/>, every detector on: statements per second and the report.</summary>
    internal static async Task<(double PerSecond, PoolReport Report, double Cpu)> MeasureAsync(string provider, Load load, int size, TimeSpan duration)
    {
        var options = new OrseisOptions();
        options.Diagnostics.Detectors = FindingKind.All;
        (DbProviderFactory factory, string cs, string sql) = provider switch
        {
            "mysqlconnector" => ((DbProviderFactory)MySqlConnectorFactory.Instance, Server.With($"Max Pool Size={size};Connect Timeout=60"),
                load.StatementMs == 0 ? "select 1" : Invariant($"do sleep({load.StatementMs / 1000})")),
            "npgsql" => (NpgsqlFactory.Instance, PostgresWith($"Maximum Pool Size={size};Timeout=60"),
                load.StatementMs == 0 ? "select 1" : Invariant($"select pg_sleep({load.StatementMs / 1000})")),
            _ => throw new ScenarioSetupException($"--providers: '{provider}' is not one of {string.Join(", ", Providers)}."),
        };
        await using var db = new Database(factory, cs, options);
        await ScenarioRun.WarmAsync(db, Math.Min(size, load.Callers));
        long done = 0;
        bool counting = false;
        var watch = new Stopwatch();
        using var stop = new CancellationTokenSource();
        Task[] callers = [.. Enumerable.Range(0, load.Callers).Select(_ => Task.Run(async () =>
        {
            while (!stop.IsCancellationRequested)
            {
                if (load.Sessions)
                {
                    await using Session session = await db.OpenSessionAsync();
                    for (int i = 0; i < load.Statements; i++)
                        await session.ExecuteAsync(sql);
                }
                else
                {
                    for (int i = 0; i < load.Statements; i++)
                        await db.ExecuteAsync(sql);
                }

                if (Volatile.Read(ref counting))
                    Interlocked.Add(ref done, load.Statements);
                if (load.ThinkMs > 0)
                    await Task.Delay(load.ThinkMs);
            }
        }))];
        await Task.Delay(500); // ramp-up, not counted
        Volatile.Write(ref counting, true);
        using Process self = Process.GetCurrentProcess();
        TimeSpan cpuBefore = self.TotalProcessorTime;
        (long busyBefore, long allBefore) = MachineCpu();
        long pendingSum = 0, pendingSamples = 0;
        watch.Start();
        while (watch.Elapsed < duration)
        {
            pendingSum += ThreadPool.PendingWorkItemCount;
            pendingSamples++;
            await Task.Delay(10);
        }

        long completed = Interlocked.Read(ref done);
        double seconds = watch.Elapsed.TotalSeconds;
        self.Refresh();
        double cpu = (self.TotalProcessorTime - cpuBefore).TotalSeconds / seconds / Environment.ProcessorCount;
        (long busyAfter, long allAfter) = MachineCpu();
        Console.Error.WriteLine(Invariant($"  machine CPU busy {(double)(busyAfter - busyBefore) / Math.Max(1, allAfter - allBefore):0.00}, pending work items {(double)pendingSum / Math.Max(1, pendingSamples):0.#}, client CPU {cpu:0.00}"));
        PoolReport report = db.GetPoolReport();
        await stop.CancelAsync();
        await Task.WhenAll(callers);
        return (completed / seconds, report, cpu);
    }

    /// <summary>The PostgreSQL of ORSEIS_POSTGRES (scripts/pg-start.sh) with extra settings, in a pool of its own.</summary>
    private static string PostgresWith(string settings) =>
        Environment.GetEnvironmentVariable("ORSEIS_POSTGRES") is { Length: > 0 } cs
            ? cs.TrimEnd(';') + ";" + settings + ";Application Name=orseis-sweep-" + Guid.NewGuid().ToString("N")[..8]
            : throw new ScenarioSetupException("Set ORSEIS_POSTGRES to a PostgreSQL connection string (scripts/pg-start.sh writes one) for --providers npgsql.");

    /// <summary>
    /// <paramref name="load"/> with <paramref name="callers"/> callers and advised from <paramref name="currents"/> where given
    /// (sizes the load was not written for); its description gives the new count.
    /// </summary>
    internal static Load Resized(Load load, int? callers, int[]? currents)
    {
        if (callers is { } n && n != load.Callers)
        {
            string[] parts = load.Name.Split(':', 2);
            string described = System.Text.RegularExpressions.Regex.Replace(parts[1], @"^ \d+", Invariant($" {n}"));
            load = load with { Name = parts[0] + ":" + described, Callers = n };
        }

        return currents is { Length: > 0 } sizes ? load with { Currents = sizes } : load;
    }

    /// <summary>
    /// Four times <paramref name="size"/>, but no more connections than the load has callers (a caller holds one at a
    /// time); <paramref name="size"/> itself (nothing to compare) when that is not at least twice it.
    /// </summary>
    private static int Larger(Load load, int size) => Math.Min(4 * size, load.Callers) is var larger && larger >= 2 * size ? larger : size;

    private static (long Busy, long All) MachineCpu()
    {
        try
        {
            long[] f = [.. File.ReadLines("/proc/stat").First().Split(' ', StringSplitOptions.RemoveEmptyEntries).Skip(1).Select(long.Parse)];
            long idle = f[3] + f[4];
            long all = f.Take(8).Sum();
            return (all - idle, all);
        }
        catch (IOException)
        {
            return (0, 0);
        }
    }

    /// <summary>The spread of one size's runs: (max - min) / median.</summary>
    private static double Spread(List<double> runs) => runs.Count == 0 ? 0 : (runs.Max() - runs.Min()) / Median(runs);

    private static double Median(List<double> values)
    {
        double[] sorted = [.. values.Order()];
        return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;
    }

    private static string Uptime()
    {
        try
        {
            return File.ReadAllText("/proc/loadavg").Trim();
        }
        catch (IOException)
        {
            return "unknown";
        }
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
