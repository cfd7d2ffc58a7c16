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
/// through MySqlConnector, and says whether the scope met the targets: throughput at least open-per-call's and within
/// 10 % of the session's, no more connections out of the pool at once than open-per-call, a p99 no worse.
/// </summary>
internal static class ScopesCommand
{
    public static readonly string[] Units = ["percall", "scope", "session"];

    /// <summary>One unit's measured load: hey's summary, and the app's report before and after it.</summary>
    /// <param name="Unit">percall, scope or session.</param>
    /// <param name="PauseMs">The pause between two calls of a request.</param>
    /// <param name="Run">The run, from 1.</param>
    /// <param name="Hey">What hey printed for the measured load.</param>
    /// <param name="Before">The app's report just before the load.</param>
    /// <param name="After">The app's report half a second after it.</param>
    /// <param name="MachineBusy">The machine's busy CPU time over the load, seconds (every core), when /proc/stat is there.</param>
    /// <param name="MachineTotal">The machine's CPU time in all over the load (wall time x cores).</param>
    /// <param name="ServerCpu">The MariaDB server's CPU time over the load, when ORSEIS_MYSQL_PID names it.</param>
    internal sealed record Measured(
        string Unit, int PauseMs, int Run, HeySummary Hey, WorkReport Before, WorkReport After, double? MachineBusy, double? MachineTotal,
        double? ServerCpu)
    {
        /// <summary>/work requests answered 200 between the two reports.</summary>
        public long Answered => After.WorkAnswered - Before.WorkAnswered;

        /// <summary>The app's CPU time per request answered, in milliseconds.</summary>
        public double AppCpuPerRequest => Answered == 0 ? double.NaN : (After.CpuSeconds - Before.CpuSeconds) * 1000 / Answered;

        /// <summary>The server's CPU time per request answered, in milliseconds; NaN when unknown.</summary>
        public double ServerCpuPerRequest => ServerCpu is { } s && Answered > 0 ? s * 1000 / Answered : double.NaN;

        /// <summary>The share of the machine's CPU time that was busy over the load; NaN when unknown.</summary>
        public double MachineBusyShare => MachineBusy is { } b && MachineTotal is > 0 and { } t ? b / t : double.NaN;

        public long Opens => After.Opens - Before.Opens;

        public long Commands => After.Commands - Before.Commands;

        public long ScopeReuses => After.ScopeReuses - Before.ScopeReuses;

        public double ParkedMilliseconds => After.ParkedMilliseconds - Before.ParkedMilliseconds;

        public long QueuedOpens => After.QueuedOpens - Before.QueuedOpens;

        /// <summary>Connections out of the provider's idle list on average between the two reports (the load and half a second).</summary>
        public double MeanTaken => (After.ProviderTakenSeconds - Before.ProviderTakenSeconds) / Seconds;

        /// <summary>Connections the provider counted as used on average between the two reports.</summary>
        public double MeanUsed => (After.ProviderUsedSeconds - Before.ProviderUsedSeconds) / Seconds;

        private double Seconds => After.UptimeSeconds - Before.UptimeSeconds;

        public Dictionary<string, long> NewErrors => Added(Before.Errors, After.Errors);

        public Dictionary<string, long> NewFindings => Added(Before.FindingCounts, After.FindingCounts);
    }

    public static async Task<int> RunAsync(
        int runs, int[] pauses, int seconds, int concurrency, int maxPool, bool detectors, int maxMinutes, string? output, string? app)
    {
        string dll = app ?? SlowAppProcess.BuildApp();
        if (!File.Exists(dll))
            throw new ScenarioSetupException($"--app: {dll} does not exist.");
        _ = Server.ConnectionString; // ORSEIS_MYSQL set, or say so before anything starts
        var results = new List<Measured>();
        var clock = Stopwatch.StartNew();
        TimeSpan deadline = TimeSpan.FromMinutes(maxMinutes);
        bool cut = false;
        int measurements = runs * pauses.Length * Units.Length;
        double expected = measurements * (seconds + 12) / 60.0;
        Console.Error.WriteLine(Invariant($"{measurements} loads of {seconds} s: about {expected:0} min, {maxMinutes} at most"));
        for (int run = 1; run <= runs && !cut; run++)
        {
            foreach (int pause in pauses)
            {
                // The units take turns, starting one further each run: no unit always runs first or last.
                foreach (string unit in Units.Skip((run - 1) % Units.Length).Concat(Units.Take((run - 1) % Units.Length)))
                {
                    if (clock.Elapsed > deadline)
                    {
                        cut = true;
                        break;
                    }

                    Measured measured = await MeasureAsync(dll, unit, pause, run, seconds, concurrency, maxPool, detectors);
                    results.Add(measured);
                    HeySummary hey = measured.Hey;
                    Console.Error.WriteLine(
                        Invariant($"run {run}, pause {pause} ms, {unit}: {hey.OkPerSecond:0} ok/s, p50 {hey.P50Seconds * 1000:0.0} ms, ") +
                        Invariant($"p99 {hey.P99Seconds * 1000:0.0} ms, failed {hey.Failed}, ") +
                        Invariant($"peak taken {measured.After.ProviderPeakTaken}, mean taken {measured.MeanTaken:0.0}, ") +
                        Invariant($"opens/commands {measured.Opens}/{measured.Commands} ({clock.Elapsed.TotalMinutes:0.0} min)"));
                }

                if (cut)
                    break;
            }
        }

        string text = Report(results, pauses, seconds, concurrency, maxPool, detectors, runs, clock.Elapsed, cut);
        Console.Write(text);
        if (output is not null)
            await File.WriteAllTextAsync(output, text);
        return 0;
    }

    private static async Task<Measured> MeasureAsync(
        string dll, string unit, int pause, int run, int seconds, int concurrency, int maxPool, bool detectors)
    {
        await using WorkAppProcess process = await WorkAppProcess.StartAsync(dll, unit, maxPool, detectors);
        var url = new Uri(process.Root, Invariant($"work?pauseMs={pause}"));

        // Warm: the pool filled, the code jitted, the thread pool grown; then a second for parked connections to go back.
        await HeySummary.RunAsync(url, concurrency, null, concurrency * 2, TimeSpan.FromMinutes(3));
        await Task.Delay(TimeSpan.FromSeconds(1));
        WorkReport before = await process.ReportAsync(resetPeak: true);
        (double Busy, double Total)? machineBefore = CpuClock.Machine();
        double? serverBefore = CpuClock.Server();
        TimeSpan load = TimeSpan.FromSeconds(seconds);
        HeySummary hey = await HeySummary.RunAsync(url, concurrency, load, 0, load + TimeSpan.FromSeconds(90));
        (double Busy, double Total)? machineAfter = CpuClock.Machine();
        double? serverAfter = CpuClock.Server();
        await Task.Delay(TimeSpan.FromMilliseconds(500)); // the detectors' last findings
        WorkReport after = await process.ReportAsync();
        return new Measured(
            unit, pause, run, hey, before, after, machineAfter?.Busy - machineBefore?.Busy, machineAfter?.Total - machineBefore?.Total,
            serverAfter - serverBefore);
    }

    private static string Report(
        List<Measured> results, int[] pauses, int seconds, int concurrency, int maxPool, bool detectors, int runs, TimeSpan took, bool cut)
    {
        var text = new StringBuilder();
        text.AppendLine(Invariant($"hey -c {concurrency} -z {seconds}s against the SlowApp's GET /work?pauseMs=P: per request 1..20"));
        text.AppendLine("sequential `select @v` (by turns, 10.5 on average), each through an async repository method, with");
        text.AppendLine(Invariant($"`await Task.Delay(P)` between two calls; MariaDB through MySqlConnector, Max Pool Size {maxPool},"));
        text.AppendLine(Invariant($"Orseis detectors {(detectors ? "All" : "None")}. {runs} run(s), each unit in a fresh app process"));
        text.AppendLine(Invariant($"after a warm-up of {concurrency * 2} requests, the units in turns; {took.TotalMinutes:0.0} min."));
        if (cut)
            text.AppendLine("**Cut short by --max-minutes: not every run was made.**");
        text.AppendLine();
        text.AppendLine("Over runs: the median and [range]. ok/s: requests answered 200 per second of hey's wall time. Taken:");
        text.AppendLine("connections out of MySqlConnector's idle list, from its meter (being reset for an open, held by a call or a");
        text.AppendLine("session, or parked in a scope): the most at once during the measured load, and the mean over it (and half a");
        text.AppendLine("second after). Used: the same without the reset round trip MySqlConnector makes before it counts a pooled");
        text.AppendLine("connection as used. Orseis' PeakInUse counts neither resets nor parked connections, and covers the warm-up");
        text.AppendLine("too. Parked ms per call: the time connections sat parked in scopes, divided by the calls. CPU ms per request:");
        text.AppendLine("the app's and the MariaDB server's CPU time (user and system) over the load, divided by the requests answered;");
        text.AppendLine("machine busy: the share of all cores' time that was not idle while hey ran (the other engineer's work included).");
        foreach (int pause in pauses)
        {
            Measured[] all = [.. results.Where(r => r.PauseMs == pause)];
            if (all.Length == 0)
                continue;
            text.AppendLine();
            text.AppendLine(Invariant($"### Pause {pause} ms between calls"));
            text.AppendLine();
            text.Append("| unit | ok/s | p50 ms | p99 ms | failed | peak taken | mean taken | mean used | Orseis PeakInUse ");
            text.AppendLine("| opens / commands | scope reuses / commands | parked ms per call | queued opens | app CPU ms per request "
                            + "| server CPU ms per request | machine busy | findings |");
            text.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
            foreach (string unit in Units)
            {
                Measured[] rows = [.. all.Where(r => r.Unit == unit)];
                if (rows.Length == 0)
                    continue;
                string[] cells =
                [
                    unit, Cell(rows, r => r.Hey.OkPerSecond, "0"), Cell(rows, r => r.Hey.P50Seconds * 1000, "0.0"),
                    Cell(rows, r => r.Hey.P99Seconds * 1000, "0.0"), Invariant($"{rows.Sum(r => r.Hey.Failed)}"),
                    Cell(rows, r => r.After.ProviderPeakTaken, "0"), Cell(rows, r => r.MeanTaken, "0.0"),
                    Cell(rows, r => r.MeanUsed, "0.0"), Cell(rows, r => r.After.PeakInUse, "0"),
                    Cell(rows, r => Ratio(r.Opens, r.Commands), "0.000"), Cell(rows, r => Ratio(r.ScopeReuses, r.Commands), "0.000"),
                    Cell(rows, r => r.Commands == 0 ? 0 : r.ParkedMilliseconds / r.Commands, "0.00"), Cell(rows, r => r.QueuedOpens, "0"),
                    Cell(rows, r => r.AppCpuPerRequest, "0.00"), Cell(rows, r => r.ServerCpuPerRequest, "0.00"),
                    Cell(rows, r => r.MachineBusyShare * 100, "0") + " %", FindingsIn(rows),
                ];
                text.AppendLine("| " + string.Join(" | ", cells) + " |");
            }

            string[] failures = [.. all.SelectMany(r => r.NewErrors.Select(e => $"{r.Unit}: {e.Key} x{e.Value}"))];
            if (failures.Length > 0)
                text.AppendLine().AppendLine("Failed requests the app counted: " + string.Join("; ", failures.Distinct()));
            text.AppendLine();
            text.AppendLine(Invariant($"Verdicts at {pause} ms (medians; \"within noise\": the two units' ranges over runs overlap):"));
            foreach (string verdict in Verdicts(all))
                text.AppendLine("- " + verdict);
        }

        return text.ToString();
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
                         Invariant($" (Orseis PeakInUse, parked ones not counted: scope {Median(scope, r => r.After.PeakInUse):0}, ") +
                         Invariant($"percall {Median(percall, r => r.After.PeakInUse):0})");
            double s99 = Median(scope, P99), p99 = Median(percall, P99);
            yield return Invariant($"p99 not worse than open-per-call's: scope {s99:0.0} ms, percall {p99:0.0} ms ({Change(s99, p99)}): ") +
                         Met(s99 <= p99, Overlap(scope, percall, P99));
        }
    }

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
