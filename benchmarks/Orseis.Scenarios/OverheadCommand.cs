using System.Diagnostics;
using System.Globalization;
using System.Text;

namespace Orseis.Scenarios;

/// <summary>
/// What <c>Detectors = All</c> costs against <c>Detectors = None</c> on a sequential loop of <c>Scalar("select 1")</c>
/// against MariaDB, on a Session and open per call, with nobody listening and with an in-process MeterListener and
/// EventListener attached, measured so a machine shared with other work cannot decide the answer:
/// <list type="bullet">
/// <item>Each configuration runs in its own process (<see cref="OverheadChild"/>), warmed up first; the two processes of
/// a pair (None, All) run blocks of calls in turn, never at the same time, alternating which goes first, so load that
/// comes and goes hits both sides of each block pair alike. A pair's ratio is the median of its block ratios. The two
/// sides also take turns being the process started first (use an even number of pairs).</item>
/// <item>Blocks are short (50 calls, a few milliseconds): a block's round trips run either all fast or all slow, as the
/// scheduler happens to place the client and the server when the block starts (on a two-core VM, 65-75 µs or 140-220 µs
/// per open-per-call call), so each block is one draw of that placement, and many short blocks average it far better
/// than a few long ones. A None-against-None run (<c>--detectors None</c>) measured the method's own noise: over 8
/// pairs, the spread of the pairs' ratios fell from 13 % with 40 blocks of 400 calls to 4 % with 320 blocks of 50.</item>
/// <item>A process has its own code layout, JIT decisions and cache luck, which can move identical code by several
/// percent: so the experiment is repeated on several fresh pairs, and the answer is the geometric mean of the pairs'
/// ratios with a 95 % t-interval over pairs (the pairs are independent; the blocks within a pair are not, and are
/// never counted as independent samples).</item>
/// </list>
/// </summary>
internal static class OverheadCommand
{
    /// <summary>
    /// Reads a detector setting: FindingKind names joined by commas (<c>All</c>, <c>Churn,HeldTooLong</c>, <c>None</c>),
    /// optionally minus some (<c>All-RepeatedStatement</c>: every detector but that one). Null when it is not one.
    /// </summary>
    public static Orseis.Diagnostics.FindingKind? ParseDetectors(string text)
    {
        string[] parts = text.Split('-');
        if (!Enum.TryParse(parts[0], out Orseis.Diagnostics.FindingKind kinds))
            return null;
        foreach (string removed in parts.Skip(1))
        {
            if (!Enum.TryParse(removed, out Orseis.Diagnostics.FindingKind minus))
                return null;
            kinds &= ~minus;
        }

        return kinds;
    }

    /// <summary>The modes a shape is measured in: <c>select1</c> on a session and open per call, <c>web</c> (a request of
    /// four different statements, see <see cref="OverheadChild"/>) in a scope and open per call.</summary>
    private static string[] ModesOf(string shape) => shape == "web" ? ["scope", "per-call"] : ["session", "per-call"];

    /// <param name="provider"><c>mysql</c> or <c>sqlite</c>.</param>
    /// <param name="pairs">Fresh process pairs per listener state.</param>
    /// <param name="blocks">Block pairs per mode and process pair.</param>
    /// <param name="calls">Sequential calls per block.</param>
    /// <param name="against">The detectors compared with None (<c>All</c>, or some of them, to attribute the cost).</param>
    /// <param name="listenerStates">Which listener states to run: without listeners, with them, or both.</param>
    /// <param name="csv">When set, every block pair is written there, one line each, for a closer look.</param>
    /// <param name="baseline">The side <paramref name="against"/> is compared with: <c>None</c> by default, or e.g.
    /// <c>All-RepeatedStatement</c> to read what one detector adds to the others.</param>
    /// <param name="shape"><c>select1</c> (a loop of <c>Scalar("select 1")</c>) or <c>web</c> (requests of four statements).</param>
    public static async Task<int> RunAsync(
        string provider, int pairs, int blocks, int calls, string against, bool[] listenerStates, string? csv, string baseline = "None", string shape = "select1")
    {
        string[] modes = ModesOf(shape);
        using StreamWriter? blockLog = csv is null ? null : new StreamWriter(csv);
        blockLog?.WriteLine("listeners,pair,none_started_first,mode,block,none_ran_first,none_wall_ns,all_wall_ns,none_cpu_ns,all_cpu_ns,none_user_ns,all_user_ns,none_bytes,all_bytes");
        var watch = Stopwatch.StartNew();
        string loadBefore = LoadAverage();
        var results = new List<Row>();
        foreach (bool listeners in listenerStates)
        {
            var perPair = modes.ToDictionary(m => m, _ => new List<PairResult>());
            for (int p = 0; p < pairs; p++)
            {
                Dictionary<string, PairResult> pair = await RunPairAsync(provider, baseline, against, shape, listeners, p, blocks, calls, blockLog);
                foreach ((string mode, PairResult result) in pair)
                    perPair[mode].Add(result);
                string ratios = string.Join(", ", pair.Select(r => string.Create(CultureInfo.InvariantCulture, $"{r.Key} {r.Value.WallRatio:0.000}")));
                Console.Error.WriteLine($"overhead: listeners={listeners} pair {p + 1}/{pairs} done: wall {against} / {baseline} {ratios}");
            }

            results.AddRange(modes.Select(m => Row.From(listeners, m, perPair[m])));
        }

        Console.WriteLine(Table(provider, baseline, against, shape, results, pairs, blocks, calls, watch.Elapsed, loadBefore, LoadAverage()));
        return 0;
    }

    private static async Task<Dictionary<string, PairResult>> RunPairAsync(
        string provider, string baseline, string against, string shape, bool listeners, int pair, int blocks, int calls, StreamWriter? blockLog)
    {
        string[] modes = ModesOf(shape);
        // The process started second of a pair ran open-per-call calls slower, whatever it was: PoolSize (no work per call)
        // against None read +11.4 % (+4.8 .. +18.3) over 24 pairs with None always started first. So the sides take
        // turns starting first, and the bias cancels over an even number of pairs.
        bool noneStartsFirst = pair % 2 == 0;
        using Side startedFirst = await Side.StartAsync(provider, noneStartsFirst ? baseline : against, listeners, shape);
        using Side startedSecond = await Side.StartAsync(provider, noneStartsFirst ? against : baseline, listeners, shape);
        Side none = noneStartsFirst ? startedFirst : startedSecond;
        Side all = noneStartsFirst ? startedSecond : startedFirst;
        var samples = modes.ToDictionary(m => m, _ => new List<(Block None, Block All)>());
        for (int b = 0; b < blocks; b++)
        {
            foreach (string mode in modes)
            {
                bool noneFirst = (b + pair) % 2 == 0;
                Block first = await (noneFirst ? none : all).RunAsync(mode, calls);
                Block second = await (noneFirst ? all : none).RunAsync(mode, calls);
                (Block n, Block a) = noneFirst ? (first, second) : (second, first);
                samples[mode].Add((n, a));
                blockLog?.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"{listeners},{pair},{noneStartsFirst},{mode},{b},{noneFirst},{n.WallNs},{a.WallNs},{n.CpuNs},{a.CpuNs},{n.UserNs},{a.UserNs},{n.Bytes},{a.Bytes}"));
            }
        }

        return samples.ToDictionary(s => s.Key, s => PairResult.From(s.Value, calls));
    }

    private static string LoadAverage() =>
        File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "n/a";

    private static string Table(
        string provider, string baseline, string against, string shape, List<Row> rows, int pairs, int blocks, int calls, TimeSpan elapsed, string loadBefore, string loadAfter)
    {
        var s = new StringBuilder();
        string unit = shape == "web" ? "request" : "call";
        string b = baseline;
        s.AppendLine($"| listeners | mode | wall per {unit}, {b} | {against} / {b}, wall (95 % CI) | CPU per {unit}, {b} | {against} / {b}, CPU (95 % CI) " +
            $"| user-mode CPU per {unit}, {b} | {against} - {b}, user-mode CPU per {unit} (95 % CI) | that, per {b}'s wall | bytes per {unit}, {b} / {against} |");
        s.AppendLine("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (Row r in rows)
        {
            s.AppendLine(string.Create(CultureInfo.InvariantCulture,
                $"| {(r.Listeners ? "Meter + Event" : "none")} | {r.Mode} | {r.NoneWallUs:0.0} µs | {r.Wall.AsPercent()} | {r.NoneCpuUs:0.00} µs | {r.Cpu.AsPercent()} | ") +
                string.Create(CultureInfo.InvariantCulture,
                $"{r.NoneUserUs:0.00} µs | {r.UserDelta.AsMicroseconds()} | {r.UserDelta.Per(r.NoneWallUs).AsShare()} | {r.NoneBytes:0} / {r.AllBytes:0} B |"));
        }

        s.AppendLine();
        s.AppendLine(string.Create(CultureInfo.InvariantCulture,
            $"{(provider == "sqlite" ? "In-memory SQLite" : "MariaDB through MySqlConnector")}, {(shape == "web" ? "web requests of four statements" : "Scalar(\"select 1\")")}: {pairs} process pairs per listener state, {blocks} block pairs of {calls} calls per mode and pair; the ratio is the geometric mean of the pairs' median block ratios, the user-mode difference the mean of the pairs' differences over all their blocks, each interval a t-interval over pairs. {elapsed.TotalMinutes:0.0} min; load average {loadBefore} before, {loadAfter} after."));
        return s.ToString();
    }

    internal readonly record struct Block(long WallNs, long CpuNs, long Bytes, long UserNs);

    /// <summary>One pair's result for one mode: the median block ratios and user-mode difference per call, and the None
    /// side's per-call figures.</summary>
    private readonly record struct PairResult(
        double WallRatio, double CpuRatio, double UserDeltaUs, double NoneWallUs, double NoneCpuUs, double NoneUserUs, double NoneBytes, double AllBytes)
    {
        public static PairResult From(List<(Block None, Block All)> blocks, int calls) =>
            new(PairStatistics.Median(blocks.Select(b => (double)b.All.WallNs / b.None.WallNs)),
                PairStatistics.Median(blocks.Select(b => (double)b.All.CpuNs / b.None.CpuNs)),
                // The user-mode clock ticks every 4 ms, longer than a block: summed over the pair, not a median of blocks.
                (blocks.Sum(b => b.All.UserNs) - blocks.Sum(b => b.None.UserNs)) / 1000.0 / calls / blocks.Count,
                PairStatistics.Median(blocks.Select(b => b.None.WallNs / 1000.0 / calls)),
                PairStatistics.Median(blocks.Select(b => b.None.CpuNs / 1000.0 / calls)),
                blocks.Sum(b => b.None.UserNs) / 1000.0 / calls / blocks.Count,
                PairStatistics.Median(blocks.Select(b => (double)b.None.Bytes / calls)),
                PairStatistics.Median(blocks.Select(b => (double)b.All.Bytes / calls)));
    }

    private sealed record Row(
        bool Listeners, string Mode, double NoneWallUs, double NoneCpuUs, double NoneUserUs, double NoneBytes, double AllBytes,
        PairStatistics.Interval Wall, PairStatistics.Interval Cpu, PairStatistics.Interval UserDelta)
    {
        public static Row From(bool listeners, string mode, List<PairResult> pairs) =>
            new(listeners, mode, PairStatistics.Median(pairs.Select(p => p.NoneWallUs)), PairStatistics.Median(pairs.Select(p => p.NoneCpuUs)),
                PairStatistics.Median(pairs.Select(p => p.NoneUserUs)),
                PairStatistics.Median(pairs.Select(p => p.NoneBytes)), PairStatistics.Median(pairs.Select(p => p.AllBytes)),
                PairStatistics.Ratio(pairs.Select(p => p.WallRatio)), PairStatistics.Ratio(pairs.Select(p => p.CpuRatio)),
                PairStatistics.Mean(pairs.Select(p => p.UserDeltaUs)));
    }

    /// <summary>A child process serving blocks over its stdin/stdout.</summary>
    internal sealed class Side : IDisposable
    {
        private readonly Process _process;

        private Side(Process process) => _process = process;

        public int ProcessId => _process.Id;

        public static async Task<Side> StartAsync(string provider, string detectors, bool listeners, string shape = "select1")
        {
            Process process = SuiteRunner.StartSelf(redirectInput: true, "overhead-child", provider, detectors, listeners ? "listeners" : "quiet", shape);
            string? ready = await process.StandardOutput.ReadLineAsync();
            if (ready != "ready")
                throw new ScenarioSetupException($"overhead child ({detectors}) failed to start: {ready} {await process.StandardError.ReadToEndAsync()}");
            return new Side(process);
        }

        public async Task<Block> RunAsync(string mode, int calls)
        {
            await _process.StandardInput.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"{mode} {calls}"));
            await _process.StandardInput.FlushAsync();
            string[] parts = (await _process.StandardOutput.ReadLineAsync())!.Split(' ');
            return new Block(long.Parse(parts[0], CultureInfo.InvariantCulture), long.Parse(parts[1], CultureInfo.InvariantCulture),
                long.Parse(parts[2], CultureInfo.InvariantCulture), long.Parse(parts[3], CultureInfo.InvariantCulture));
        }

        public void Dispose()
        {
            _process.StandardInput.Close();
            if (!_process.WaitForExit(10_000))
                _process.Kill(entireProcessTree: true);
            _process.Dispose();
        }
    }
}
