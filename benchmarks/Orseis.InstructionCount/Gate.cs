using System.Diagnostics;
using System.Globalization;

namespace Orseis.InstructionCount;

/// <summary>
/// Runs paths under valgrind's callgrind and reads instructions per call: one process per listener setting, started
/// with instrumentation off (start-up and warm-up run at valgrind's light speed), which turns it on after the warm-up
/// and collects only the calling thread between its own toggles (so start-up, the JIT, timers and background threads
/// never count), one dump per path.
/// </summary>
public static class Gate
{
    /// <summary>Calls per path by default: enough that the per-call figure varies well under 0.1 % between runs.</summary>
    public const int DefaultCalls = 400;

    /// <summary>
    /// The environment the measured process runs with: code compiled fully optimised on first use (no tiering, no PGO,
    /// no optional relocation hints, without which the JIT falls back to unoptimised code for about half of the methods
    /// under valgrind), the workstation GC without a background thread and with a gen0 budget larger than a path
    /// allocates, and the JIT's write-xor-execute double mapping off (it confuses valgrind). See
    /// <see cref="CountingEnvironment"/>.
    /// </summary>
    public static readonly IReadOnlyDictionary<string, string> Environment =
        CountingEnvironment.All.ToDictionary(e => e.Name, e => e.Value);

    /// <summary>Instructions per call of each path, counted by callgrind.</summary>
    /// <param name="paths">The paths to measure.</param>
    /// <param name="calls">Calls counted per path.</param>
    /// <param name="inject">For the gate's own test: <c>PATH=ITERATIONS</c> adds a loop to every call of one path.</param>
    /// <param name="log">Where to write progress (the measured process's lines), or null.</param>
    public static IReadOnlyDictionary<GatePath, double> Measure(IEnumerable<GatePath> paths, int calls = DefaultCalls, string? inject = null, TextWriter? log = null)
    {
        if (!OnPath("valgrind"))
            throw new InvalidOperationException("the instruction gate needs valgrind on PATH (Debian: apt-get install valgrind)");
        ArgumentOutOfRangeException.ThrowIfLessThan(calls, 1);
        var result = new Dictionary<GatePath, double>();
        // One process per listener setting (listeners are process-wide), the two side by side: counts do not depend on
        // what else runs.
        Parallel.ForEach(paths.Distinct().GroupBy(p => p.Listeners), group =>
        {
            string dumps = Directory.CreateTempSubdirectory("orseis-gate-").FullName;
            try
            {
                RunUnderCallgrind([.. group], calls, inject, dumps, log);
                foreach ((string name, long instructions) in CallgrindDumps.Read(dumps))
                {
                    if (name == Child.DiscardedDump)
                        continue;
                    lock (result)
                        result[GatePath.Parse(name)] = instructions / (double)calls;
                }
            }
            finally
            {
                Directory.Delete(dumps, recursive: true);
            }
        });

        foreach (GatePath path in paths)
        {
            if (!result.ContainsKey(path))
                throw new InvalidOperationException($"callgrind wrote no dump for {path}");
        }

        return result;
    }

    private static void RunUnderCallgrind(GatePath[] paths, int calls, string? inject, string dumps, TextWriter? log)
    {
        var start = new ProcessStartInfo("valgrind") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        string program = typeof(Gate).Assembly.Location;
        foreach (string arg in (string[])["--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no", "--dump-instr=no",
                     "--dump-line=no", $"--callgrind-out-file={dumps}/cg.out", CallgrindDumps.Dotnet(), "exec", program, "run", "--calls",
                     calls.ToString(CultureInfo.InvariantCulture)])
        {
            start.ArgumentList.Add(arg);
        }

        foreach (GatePath path in paths)
            start.ArgumentList.Add(path.ToString());
        foreach ((string name, string value) in Environment)
            start.Environment[name] = value;
        start.Environment[Child.InjectVariable] = inject ?? "";
        using Process process = Process.Start(start)!;
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        while (process.StandardOutput.ReadLine() is { } line)
        {
            if (log is not null)
            {
                lock (log)
                    log.WriteLine(line);
            }
        }
        process.WaitForExit();
        if (process.ExitCode != 0)
            throw new InvalidOperationException($"the measured process failed (exit {process.ExitCode}):\n{stderr.Result}");
    }

    private static bool OnPath(string program) =>
        (System.Environment.GetEnvironmentVariable("PATH") ?? "").Split(':').Any(dir => File.Exists(Path.Combine(dir, program)));
}
