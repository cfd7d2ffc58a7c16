using System.Diagnostics;
using System.Globalization;

namespace Orseis.InstructionCount;

/// <summary>
/// Which code the gate counts: the measured process run under valgrind without instrumenting anything
/// (<c>--tool=none</c>), the JIT listing every method it compiles and how (<c>DOTNET_JitDisasmSummary</c>), e.g.
/// <c>FullOpts</c> or <c>MinOpts</c> (unoptimised: what the JIT falls back to when an optimised compile fails).
/// </summary>
public static class JitSummary
{
    /// <summary>The tier the JIT names a method compiled with minimal optimisation.</summary>
    public const string MinOpts = "MinOpts";

    /// <summary>
    /// Runs <paramref name="calls"/> calls of <paramref name="path"/> (after the measured process's warm-up) under
    /// <c>valgrind --tool=none</c> with <paramref name="environment"/>, and returns every method the JIT compiled with its
    /// tier (the text the JIT writes before the first comma of its bracket: <c>FullOpts</c>, <c>MinOpts</c>,
    /// <c>FullOpts with Synthesized PGO</c>...). A variable of <see cref="CountingEnvironment"/> that
    /// <paramref name="environment"/> leaves out is removed from the inherited environment, so what it says is what runs.
    /// </summary>
    public static IReadOnlyList<(string Method, string Tier)> Run(GatePath path, int calls, IReadOnlyDictionary<string, string> environment)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(calls, 1);
        string listing = Path.Combine(Directory.CreateTempSubdirectory("orseis-jit-").FullName, "jit.txt");
        try
        {
            var start = new ProcessStartInfo("valgrind") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
            foreach (string arg in (string[])["--tool=none", CallgrindDumps.Dotnet(), "exec", typeof(JitSummary).Assembly.Location, "run",
                         "--calls", calls.ToString(CultureInfo.InvariantCulture), path.ToString()])
            {
                start.ArgumentList.Add(arg);
            }

            foreach ((string name, _) in CountingEnvironment.All)
                start.Environment.Remove(name);
            foreach ((string name, string value) in environment)
                start.Environment[name] = value;
            start.Environment["DOTNET_JitDisasmSummary"] = "1";
            start.Environment["DOTNET_JitStdOutFile"] = listing;
            using Process process = Process.Start(start)!;
            Task<string> stderr = process.StandardError.ReadToEndAsync();
            _ = process.StandardOutput.ReadToEnd();
            process.WaitForExit();
            if (process.ExitCode != 0)
                throw new InvalidOperationException($"the measured process failed under valgrind --tool=none (exit {process.ExitCode}):\n{stderr.Result}");
            if (!File.Exists(listing))
                throw new InvalidOperationException($"the JIT wrote no listing to {listing} (DOTNET_JitStdOutFile)");
            return [.. File.ReadLines(listing).Select(Parse).OfType<(string, string)>()];
        }
        finally
        {
            Directory.Delete(Path.GetDirectoryName(listing)!, recursive: true);
        }
    }

    /// <summary>Reads <c>   12: JIT compiled NAMESPACE.TYPE:METHOD(ARGS) [TIER, IL size=N, code size=N]</c>.</summary>
    private static (string Method, string Tier)? Parse(string line)
    {
        const string Compiled = "JIT compiled ";
        int at = line.IndexOf(Compiled, StringComparison.Ordinal);
        int bracket = line.LastIndexOf(" [", StringComparison.Ordinal);
        if (at < 0 || bracket < at)
            return null;
        int comma = line.IndexOf(',', bracket);
        string tier = line[(bracket + 2)..(comma < 0 ? line.TrimEnd(']').Length : comma)];
        return (line[(at + Compiled.Length)..bracket], tier);
    }
}
