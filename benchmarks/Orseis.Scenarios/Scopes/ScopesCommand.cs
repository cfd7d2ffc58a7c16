using System.Diagnostics;
using System.Globalization;
using System.Text;
using Orseis.Scenarios.ColdStart;

using static Orseis.Scenarios.ColdStart.StudyText;

namespace Orseis.Scenarios.Scopes;

/// <summary>
/// The web-like load of issue 29's second target: <c>hey</c> keeps 1000 callers on the SlowApp sample's <c>/work</c>
/// (1..20 sequential small queries per request, with or without a pause between calls) for each unit of connection use,
/// open per call, a ConnectionScope per request and a Session per request, each in a fresh app process over one MariaDB
/// through MySqlConnector, with Orseis' detectors on, off or both, and says whether the scope met the targets: throughput
/// at least open-per-call's and within 10 % of the session's, no more connections taken from the pool at once than open
/// per call, a p99 no worse.
/// </summary>
internal static class ScopesCommand
{
    public static readonly string[] Units = ["percall", "scope", "session"];

    /// <summary>One unit's measured load: hey's summary, the app's report before and after it, CPU time over it.</summary>
    /// <param name="Unit">percall, scope or session.</param>
    /// <param name="Detectors">Whether the app ran with every detector on (All) or none.</param>
    /// <param name="PauseMs">The pause between two calls of a request.</param>
    /// <param name="Run">The run, from 1.</param>
    /// <param name="Hey">What hey printed for the measured load.</param>
    /// <param name="Before">The app's report just before the load.</param>
    /// <param name="After">The app's report half a second after it.</param>
    /// <param name="Cpu">CPU time, seconds, over hey's run: the machine's and each process's.</param>
    internal sealed record Measured(
        string Unit, bool Detectors, int PauseMs, int Run, HeySummary Hey, WorkReport Before, WorkReport After, CpuSpent Cpu)
    {
        /// <summary>/work requests answered 200 between the two reports.</summary>
        public long Answered => After.WorkAnswered - Before.WorkAnswered;

        public long Opens => After.Opens - Before.Opens;

        public long Commands => After.Commands - Before.Commands;

        public long ScopeReuses => After.ScopeReuses - Before.ScopeReuses;

        public double ParkedMilliseconds => After.ParkedMilliseconds - Before.ParkedMilliseconds;

        public long QueuedOpens => After.QueuedOpens - Before.QueuedOpens;

        /// <summary>Connections out of the provider's idle list on average between the two reports (the load and half a second).</summary>
        public double MeanTaken => (After.ProviderTakenSeconds - Before.ProviderTakenSeconds) / Seconds;

        /// <summary>Connections the provider counted as used on average between the two reports.</summary>
        public double MeanUsed => (After.ProviderUsedSeconds - Before.ProviderUsedSeconds) / Seconds;

        public Dictionary<string, long> NewErrors => Added(Before.Errors, After.Errors);

        public Dictionary<string, long> NewFindings => Added(Before.FindingCounts, After.FindingCounts);

        /// <summary>Milliseconds of <paramref name="seconds"/> per request answered; NaN when unknown.</summary>
        public double PerRequest(double? seconds) => seconds is { } s && Answered > 0 ? s * 1000 / Answered : double.NaN;

        private double Seconds => After.UptimeSeconds - Before.UptimeSeconds;
    }

    /// <summary>CPU time over one load, seconds; null where /proc (or ORSEIS_MYSQL_PID for the server) was not there.</summary>
    internal sealed record CpuSpent(double? MachineBusy, double? MachineTotal, double? App, double? Server, double? Hey)
    {
        /// <summary>The busy share of all cores' time.</summary>
        public double BusyShare => MachineBusy is { } b && MachineTotal is > 0 and { } t ? b / t : double.NaN;

        /// <summary>The share of all cores' time busy with anything but the app, the server and hey (the other engineer's work).</summary>
        public double OthersShare =>
            MachineBusy is { } b && MachineTotal is > 0 and { } t && App is { } a && Server is { } s && Hey is { } h
                ? (b - a - s - h) / t
                : double.NaN;
    }

    public static async Task<int> RunAsync(
        int runs, int[] pauses, int seconds, int concurrency, int maxPool, bool[] detectorSettings, int maxMinutes, string? output,
        string? app)
    {
        string dll = app ?? SlowAppProcess.BuildApp();
        if (!File.Exists(dll))
            throw new ScenarioSetupException($"--app: {dll} does not exist.");
        _ = Server.ConnectionString; // ORSEIS_MYSQL set, or say so before anything starts

        // Every unit with every detector setting, in turns that start further on each run: none always first or last.
        (string Unit, bool Detectors)[] configs = [.. Units.SelectMany(u => detectorSettings.Select(d => (u, d)))];
        var results = new List<Measured>();
        var clock = Stopwatch.StartNew();
        TimeSpan deadline = TimeSpan.FromMinutes(maxMinutes);
        bool cut = false;
        int measurements = runs * pauses.Length * configs.Length;
        double expected = measurements * (seconds + 12) / 60.0;
        Console.Error.WriteLine(Invariant($"{measurements} loads of {seconds} s: about {expected:0} min, {maxMinutes} at most"));
        for (int run = 1; run <= runs && !cut; run++)
        {
            int shift = (run - 1) * detectorSettings.Length % configs.Length;
            foreach (int pause in pauses)
            {
                foreach ((string unit, bool detectors) in configs.Skip(shift).Concat(configs.Take(shift)))
                {
                    if (clock.Elapsed > deadline)
                    {
                        cut = true;
                        break;
                    }

                    Measured m = await MeasureAsync(dll, unit, detectors, pause, run, seconds, concurrency, maxPool);
                    results.Add(m);
                    Console.Error.WriteLine(
                        Invariant($"run {run}, pause {pause} ms, {unit}, detectors {Name(detectors)}: {m.Hey.OkPerSecond:0} ok/s, ") +
                        Invariant($"p50 {m.Hey.P50Seconds * 1000:0.0} ms, p99 {m.Hey.P99Seconds * 1000:0.0} ms, failed {m.Hey.Failed}, ") +
                        Invariant($"peak taken {m.After.ProviderPeakTaken}, mean taken {m.MeanTaken:0.0}, ") +
                        Invariant($"opens/commands {m.Opens}/{m.Commands}, ") +
                        Invariant($"others' CPU {m.Cpu.OthersShare * 100:0} % ({clock.Elapsed.TotalMinutes:0.0} min)"));
                }

                if (cut)
                    break;
            }
        }

        string text = Report(results, pauses, detectorSettings, seconds, concurrency, maxPool, runs, clock.Elapsed, cut);
        Console.Write(text);
        if (output is not null)
            await File.WriteAllTextAsync(output, text);
        return 0;
    }

    private static async Task<Measured> MeasureAsync(
        string dll, string unit, bool detectors, int pause, int run, int seconds, int concurrency, int maxPool)
    {
        await using WorkAppProcess process = await WorkAppProcess.StartAsync(dll, unit, maxPool, detectors);
        var url = new Uri(process.Root, Invariant($"work?pauseMs={pause}"));

        // Warm: the pool filled, the code jitted, the thread pool grown; then a second for parked connections to go back.
        await HeySummary.RunAsync(url, concurrency, null, concurrency * 2, TimeSpan.FromMinutes(3));
        await Task.Delay(TimeSpan.FromSeconds(1));
        WorkReport before = await process.ReportAsync(resetPeak: true);
        CpuClock.Reading start = CpuClock.Read(process.Id);
        TimeSpan load = TimeSpan.FromSeconds(seconds);
        HeySummary hey = await HeySummary.RunAsync(url, concurrency, load, 0, load + TimeSpan.FromSeconds(90));
        CpuClock.Reading end = CpuClock.Read(process.Id);
        await Task.Delay(TimeSpan.FromMilliseconds(500)); // the detectors' last findings
        WorkReport after = await process.ReportAsync();
        var cpu = new CpuSpent(
            end.MachineBusy - start.MachineBusy, end.MachineTotal - start.MachineTotal, end.App - start.App, end.Server - start.Server,
            end.Children - start.Children);
        return new Measured(unit, detectors, pause, run, hey, before, after, cpu);
    }

    private static string Report(
        List<Measured> results, int[] pauses, bool[] detectorSettings, int seconds, int concurrency, int maxPool, int runs, TimeSpan took,
        bool cut)
    {
        var text = new StringBuilder();
        text.AppendLine(Invariant($"hey -c {concurrency} -z {seconds}s against the SlowApp's GET /work?pauseMs=P: per request 1..20"));
        text.AppendLine("sequential `select @v` (by turns, 10.5 on average), each through an async repository method, with");
        text.AppendLine(Invariant($"`await Task.Delay(P)` between two calls; MariaDB through MySqlConnector, Max Pool Size {maxPool}."));
        string settings = string.Join(" and ", detectorSettings.Select(Name));
        text.AppendLine(Invariant($"Orseis detectors {settings}. {runs} run(s), {took.TotalMinutes:0.0} min, each unit in a fresh app"));
        text.AppendLine(Invariant($"process after a warm-up of {concurrency * 2} requests, in turns."));
        if (cut)
            text.AppendLine("**Cut short by --max-minutes: not every run was made.**");
        text.AppendLine();
        text.AppendLine("Over runs: the median and [range]. ok/s: requests answered 200 per second of hey's wall time. Taken:");
        text.AppendLine("connections out of MySqlConnector's idle list, from its meter (being reset for an open, held by a call or a");
        text.AppendLine("session, or parked in a scope): the most at once during the measured load, and the mean over it (and half a");
        text.AppendLine("second after). Used: the same without the reset round trip MySqlConnector makes before it counts a pooled");
        text.AppendLine("connection as used. Orseis' PeakInUse counts neither resets nor parked connections, and covers the warm-up");
        text.AppendLine("too. Parked ms per call: the time connections sat parked in scopes, divided by the calls. CPU ms per request:");
        text.AppendLine("the app's, the MariaDB server's and hey's CPU time (user and system) while hey ran, divided by the requests");
        text.AppendLine("answered. Others: the share of all cores' time busy with anything else (the other engineer's work, mostly).");
        text.AppendLine("Queued opens and findings come from the detectors: – with them off.");
        foreach (int pause in pauses)
        {
            foreach (bool detectors in detectorSettings)
            {
                Measured[] all = [.. results.Where(r => r.PauseMs == pause && r.Detectors == detectors)];
                if (all.Length > 0)
                    Table(text, all, pause, detectors);
            }
        }

        return text.ToString();
    }

    private static void Table(StringBuilder text, Measured[] all, int pause, bool detectors)
    {
        text.AppendLine();
        text.AppendLine(Invariant($"### Pause {pause} ms between calls, detectors {Name(detectors)}"));
        text.AppendLine();
        text.Append("| unit | ok/s | p50 ms | p99 ms | failed | peak taken | mean taken | mean used | Orseis PeakInUse ");
        text.Append("| opens / commands | scope reuses / commands | parked ms per call | queued opens ");
        text.AppendLine("| CPU ms per request: app, server, hey | others | findings |");
        text.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        foreach (string unit in Units)
        {
            Measured[] rows = [.. all.Where(r => r.Unit == unit)];
            if (rows.Length == 0)
                continue;
            string cpu = string.Join(
                ", ", Cell(rows, r => r.PerRequest(r.Cpu.App), "0.00"), Cell(rows, r => r.PerRequest(r.Cpu.Server), "0.00"),
                Cell(rows, r => r.PerRequest(r.Cpu.Hey), "0.00"));
            string[] cells =
            [
                unit, Cell(rows, r => r.Hey.OkPerSecond, "0"), Cell(rows, r => r.Hey.P50Seconds * 1000, "0.0"),
                Cell(rows, r => r.Hey.P99Seconds * 1000, "0.0"), Invariant($"{rows.Sum(r => r.Hey.Failed)}"),
                Cell(rows, r => r.After.ProviderPeakTaken, "0"), Cell(rows, r => r.MeanTaken, "0.0"), Cell(rows, r => r.MeanUsed, "0.0"),
                Cell(rows, r => r.After.PeakInUse, "0"), Cell(rows, r => Ratio(r.Opens, r.Commands), "0.000"),
                Cell(rows, r => Ratio(r.ScopeReuses, r.Commands), "0.000"),
                Cell(rows, r => r.Commands == 0 ? 0 : r.ParkedMilliseconds / r.Commands, "0.00"),
                detectors ? Cell(rows, r => r.QueuedOpens, "0") : "–", cpu, Cell(rows, r => r.Cpu.OthersShare * 100, "0") + " %",
                detectors ? FindingsIn(rows) : "–",
            ];
            text.AppendLine("| " + string.Join(" | ", cells) + " |");
        }

        string[] failures = [.. all.SelectMany(r => r.NewErrors.Select(e => $"{r.Unit}: {e.Key} x{e.Value}"))];
        if (failures.Length > 0)
            text.AppendLine().AppendLine("Failed requests the app counted: " + string.Join("; ", failures.Distinct()));
        text.AppendLine();
        text.Append(Invariant($"Verdicts at {pause} ms, detectors {Name(detectors)} "));
        text.AppendLine("(medians; \"within noise\": the two units' ranges over runs overlap):");
        foreach (string verdict in Verdicts(all))
            text.AppendLine("- " + verdict);
    }

    private static IEnumerable<string> Verdicts(Measured[] all)
    {
        Measured[] percall = [.. all.Where(r => r.Unit == "percall")], scope = [.. all.Where(r => r.Unit == "scope")],
            session = [.. all.Where(r => r.Unit == "session")];
        if (scope.Length == 0)
        {
            yield return "no scope run: no verdict";
            yield break;
        }

        static double Ok(Measured r) => r.Hey.OkPerSecond;
        static double P99(Measured r) => r.Hey.P99Seconds * 1000;
        static double Peak(Measured r) => r.After.ProviderPeakTaken;
        if (percall.Length > 0)
        {
            double s = Median(scope, Ok), p = Median(percall, Ok);
            yield return Invariant($"throughput at least open-per-call's: scope {s:0} ok/s, percall {p:0} ({Change(s, p)}): ") +
                         Met(s >= p, Overlap(scope, percall, Ok));
        }

        if (session.Length > 0)
        {
            double s = Median(scope, Ok), q = Median(session, Ok);
            yield return Invariant($"throughput within 10 % of the session's: scope {s:0} ok/s, session {q:0} ({Change(s, q)}): ") +
                         Met(s >= 0.9 * q, Overlap(scope, session, Ok));
        }

        if (percall.Length > 0)
        {
            double s = Median(scope, Peak), p = Median(percall, Peak);
            yield return Invariant($"peak connections taken from the pool not above open-per-call's: scope {s:0}, percall {p:0}: ") +
                         Met(s <= p, Overlap(scope, percall, Peak)) +
                         Invariant($"; mean taken: scope {Median(scope, r => r.MeanTaken):0.0}, ") +
                         Invariant($"percall {Median(percall, r => r.MeanTaken):0.0}");
            double s99 = Median(scope, P99), p99 = Median(percall, P99);
            yield return Invariant($"p99 not worse than open-per-call's: scope {s99:0.0} ms, percall {p99:0.0} ms ({Change(s99, p99)}): ") +
                         Met(s99 <= p99, Overlap(scope, percall, P99));
        }
    }

    private static string Name(bool detectors) => detectors ? "All" : "None";

    private static string Met(bool met, bool overlap) => (met ? "met" : "**missed**") + (overlap ? " (within noise)" : "");

    private static string Change(double value, double reference) =>
        reference == 0 ? "n/a" : ((value / reference) - 1).ToString("+0.0 %;-0.0 %;0.0 %", CultureInfo.InvariantCulture);

    private static bool Overlap(Measured[] a, Measured[] b, Func<Measured, double> value) =>
        a.Max(value) >= b.Min(value) && b.Max(value) >= a.Min(value) && (a.Length > 1 || b.Length > 1);

    private static double Median(Measured[] rows, Func<Measured, double> value)
    {
        double[] v = [.. rows.Select(value).Order()];
        return v.Length % 2 == 1 ? v[v.Length / 2] : (v[(v.Length / 2) - 1] + v[v.Length / 2]) / 2;
    }

    private static string Cell(Measured[] rows, Func<Measured, double> value, string format) => Spread(rows.Select(value), format);

    private static double Ratio(long part, long whole) => whole == 0 ? 0 : (double)part / whole;

    private static string FindingsIn(Measured[] rows)
    {
        var kinds = rows.SelectMany(r => r.NewFindings.Keys).Distinct().Order()
            .Select(k => Invariant($"{k} {rows.Count(r => r.NewFindings.ContainsKey(k))}/{rows.Length}"));
        string text = string.Join(", ", kinds);
        return text.Length == 0 ? "none" : text;
    }
}
