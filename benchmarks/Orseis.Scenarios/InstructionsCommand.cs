using System.Diagnostics;
using System.Globalization;
using System.Text;
using Orseis.InstructionCount;

namespace Orseis.Scenarios;

/// <summary>
/// What <c>Detectors = All</c> costs against <c>Detectors = None</c> in instructions, counted by valgrind's callgrind
/// over the whole client process (every thread: the detectors' own background work included) while it runs a block of
/// sequential <c>Scalar("select 1")</c> calls. An instruction count does not depend on what else the machine runs, so
/// this answers the overhead question on a machine whose wall-clock noise between processes is larger than the
/// difference asked about. The server is not counted (it runs outside valgrind); the detectors run only in the client.
/// <para>Each side is an <see cref="OverheadChild"/> started under callgrind with collection on; after its warm-up the
/// counters are zeroed (<c>callgrind_control -z</c>), one block of calls runs, and the counts are dumped
/// (<c>callgrind_control -d</c>). Under valgrind the program runs about 50 times slower, so timer-driven work (the
/// thread-pool probe every 100 ms) happens about 50 times more often per call than in a real run: the count overstates
/// the detectors' cost, never understates it.</para>
/// </summary>
internal static class InstructionsCommand
{
    private static readonly string[] Modes = ["session", "per-call"];

    public static async Task<int> RunAsync(string provider, int repeats, int calls, string against, bool[] listenerStates)
    {
        if (!OnPath("valgrind") || !OnPath("callgrind_control"))
            throw new ScenarioSetupException("instructions needs valgrind and callgrind_control on PATH (Debian: apt-get install valgrind)");
        var watch = Stopwatch.StartNew();
        string dumps = Directory.CreateTempSubdirectory("orseis-callgrind-").FullName;
        var counts = new Dictionary<(bool Listeners, string Detectors, string Mode), List<(double Main, double Others)>>();
        try
        {
            foreach (bool listeners in listenerStates)
            {
                for (int r = 0; r < repeats; r++)
                {
                    // Alternate which side starts first, so nothing that drifts over the run favours one side.
                    string[] order = r % 2 == 0 ? ["None", against] : [against, "None"];
                    foreach (string detectors in order)
                    {
                        Dictionary<string, (double Main, double Others)> perCall = await CountAsync(provider, detectors, listeners, calls, dumps);
                        foreach ((string mode, (double Main, double Others) value) in perCall)
                        {
                            var key = (listeners, detectors == "None" ? "None" : "All", mode);
                            if (!counts.ContainsKey(key))
                                counts[key] = [];
                            counts[key].Add(value);
                        }

                        string figures = string.Join(", ", perCall.Select(p => string.Create(CultureInfo.InvariantCulture, $"{p.Key} {p.Value.Main:0} + {p.Value.Others:0} per call")));
                        Console.Error.WriteLine($"instructions: listeners={listeners} repeat {r + 1}/{repeats} {detectors}: {figures}");
                    }
                }
            }
        }
        finally
        {
            Directory.Delete(dumps, recursive: true);
        }

        Console.WriteLine(Table(provider, against, counts, listenerStates, repeats, calls, watch.Elapsed));
        return 0;
    }

    private static async Task<Dictionary<string, (double Main, double Others)>> CountAsync(string provider, string detectors, bool listeners, int calls, string dumps)
    {
        ProcessStartInfo self = SuiteRunner.SelfStartInfo(redirectInput: true, "overhead-child", provider, detectors, listeners ? "listeners" : "quiet");
        var start = new ProcessStartInfo("valgrind")
        {
            RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true, UseShellExecute = false,
        };
        foreach (string arg in (string[])["--tool=callgrind", $"--callgrind-out-file={dumps}/cg.%p", "--dump-instr=no", "--separate-threads=yes", self.FileName])
            start.ArgumentList.Add(arg);
        foreach (string arg in self.ArgumentList)
            start.ArgumentList.Add(arg);
        // The JIT's write-xor-execute double mapping confuses valgrind's view of generated code. Tiered compilation
        // would leave some methods at tier 0 after the warm-up (valgrind slows the background compiler too), and which
        // ones differs from process to process: fully optimised code from the first call makes the count repeatable.
        // Without optional relocation hints the JIT does not fall back to unoptimised code under valgrind. The
        // instruction gate's settings (CountingEnvironment), its GC settings left out: this count includes every thread.
        foreach ((string name, string value) in CountingEnvironment.Jit)
            start.Environment[name] = value;
        using Process process = Process.Start(start)!;
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        try
        {
            string? ready = await process.StandardOutput.ReadLineAsync();
            if (ready != "ready")
                throw new ScenarioSetupException($"overhead child ({detectors}) under valgrind failed to start: {ready} {await stderr}");
            var result = new Dictionary<string, (double Main, double Others)>();
            int dump = 0;
            foreach (string mode in Modes)
            {
                await ControlAsync("-z", process.Id);
                await process.StandardInput.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"{mode} {calls}"));
                await process.StandardInput.FlushAsync();
                _ = await process.StandardOutput.ReadLineAsync();
                await ControlAsync("-d", process.Id);
                dump++;
                // Thread 1 is the process's main thread, the one making the calls; the other threads (timers, the
                // thread-pool probe, the JIT, the provider's own background work) are driven by wall time, which valgrind
                // stretches about 50 times, so they are reported apart.
                string prefix = string.Create(CultureInfo.InvariantCulture, $"cg.{process.Id}.{dump}-");
                string[] files = WaitForDumps(dumps, prefix);
                long main = files.Where(f => f.EndsWith(prefix + "01", StringComparison.Ordinal)).Sum(Summary);
                long others = files.Sum(Summary) - main;
                result[mode] = (main / (double)calls, others / (double)calls);
            }

            return result;
        }
        finally
        {
            process.StandardInput.Close();
            if (!process.WaitForExit(60_000))
                process.Kill(entireProcessTree: true);
        }
    }

    private static async Task ControlAsync(string command, int pid)
    {
        var start = new ProcessStartInfo("callgrind_control") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        start.ArgumentList.Add(command);
        start.ArgumentList.Add(pid.ToString(CultureInfo.InvariantCulture));
        using Process control = Process.Start(start)!;
        string output = await control.StandardOutput.ReadToEndAsync() + await control.StandardError.ReadToEndAsync();
        await control.WaitForExitAsync();
        if (control.ExitCode != 0 || !output.Contains("OK", StringComparison.Ordinal))
            throw new ScenarioSetupException($"callgrind_control {command} {pid} failed: {output.Trim()}");
    }

    /// <summary>The per-thread dump files of one dump (<c>PREFIX01</c>, <c>PREFIX02</c>...), once the first has appeared.</summary>
    private static string[] WaitForDumps(string directory, string prefix)
    {
        for (int wait = 0; wait < 100 && !File.Exists(Path.Combine(directory, prefix + "01")); wait++)
            Thread.Sleep(100);
        Thread.Sleep(500); // the other threads' files are written after the first
        return Directory.GetFiles(directory, prefix + "*");
    }

    /// <summary>The instructions a callgrind dump file counted (its <c>summary:</c> line).</summary>
    private static long Summary(string file)
    {
        string? line = File.ReadLines(file).FirstOrDefault(l => l.StartsWith("summary:", StringComparison.Ordinal))
                       ?? throw new ScenarioSetupException($"callgrind dump {file} has no summary line");
        return long.Parse(line["summary:".Length..].Trim(), CultureInfo.InvariantCulture);
    }

    private static bool OnPath(string program) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(':').Any(dir => File.Exists(Path.Combine(dir, program)));

    private static string Table(
        string provider, string against, Dictionary<(bool Listeners, string Detectors, string Mode), List<(double Main, double Others)>> counts,
        bool[] listenerStates, int repeats, int calls, TimeSpan elapsed)
    {
        var s = new StringBuilder();
        s.AppendLine($"| listeners | mode | calling thread, None | calling thread, {against} | {against} / None (widest over processes) | other threads, None / {against} |");
        s.AppendLine("|---|---|---:|---:|---:|---:|");
        foreach (bool listeners in listenerStates)
        {
            foreach (string mode in Modes)
            {
                List<double> none = [.. counts[(listeners, "None", mode)].Select(c => c.Main)];
                List<double> all = [.. counts[(listeners, "All", mode)].Select(c => c.Main)];
                double ratio = PairStatistics.Median(all) / PairStatistics.Median(none);
                double low = all.Min() / none.Max(), high = all.Max() / none.Min();
                double othersNone = PairStatistics.Median([.. counts[(listeners, "None", mode)].Select(c => c.Others)]);
                double othersAll = PairStatistics.Median([.. counts[(listeners, "All", mode)].Select(c => c.Others)]);
                s.AppendLine(string.Create(CultureInfo.InvariantCulture,
                    $"| {(listeners ? "Meter + Event" : "none")} | {mode} | {PairStatistics.Median(none):N0} ({none.Min():N0} .. {none.Max():N0}) | " +
                    $"{PairStatistics.Median(all):N0} ({all.Min():N0} .. {all.Max():N0}) | {ratio - 1:+0.00%;-0.00%} ({low - 1:+0.00%;-0.00%} .. {high - 1:+0.00%;-0.00%}) | " +
                    $"{othersNone:N0} / {othersAll:N0} |"));
            }
        }

        s.AppendLine();
        s.AppendLine(string.Create(CultureInfo.InvariantCulture,
            $"{(provider == "sqlite" ? "In-memory SQLite" : "MariaDB through MySqlConnector")}: instructions per call counted by callgrind over a block of {calls} sequential calls after {OverheadChild.Warmup} warm-up calls per mode (tiered compilation off), {repeats} fresh process(es) per side and listener state; medians, with the range over processes. Other threads run on wall-clock timers that valgrind stretches about 50 times: their figure overstates their share. {elapsed.TotalMinutes:0.0} min."));
        return s.ToString();
    }
}
