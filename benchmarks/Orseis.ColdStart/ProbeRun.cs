using System.Diagnostics;

namespace Orseis.ColdStart;

/// <summary>Publishes a probe, and runs it once as a whole process on a fresh SQLite file.</summary>
internal static class ProbeRun
{
    public static void Publish(Variant variant, string root, string work)
    {
        string project = Path.Combine(root, "benchmarks", variant.Project, variant.Project + ".csproj");
        string arguments = $"publish \"{project}\" -c Release {variant.Properties} -o \"{variant.Output(work)}\" " +
            $"--artifacts-path \"{Path.Combine(work, "artifacts-" + variant.Name)}\" -nologo";
        Console.Error.WriteLine($"publishing {variant.Name}: dotnet {arguments}");
        using Process process = Process.Start(new ProcessStartInfo("dotnet", arguments) { RedirectStandardOutput = true })!;
        string output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        if (process.ExitCode != 0)
            throw new InvalidOperationException($"publishing {variant.Name} failed (exit {process.ExitCode}):\n{output}");
    }

    /// <summary>Runs the probe; returns its timing and what it printed.</summary>
    public static (Timing Timing, string Output) Run(Variant variant, string work)
    {
        string folder = Path.Combine(work, "run");
        Directory.CreateDirectory(folder);
        string file = Path.Combine(folder, "coldstart.db");
        File.Delete(file);
        var start = new ProcessStartInfo(variant.Binary(work), $"\"{file}\"")
        {
            RedirectStandardOutput = true,
            WorkingDirectory = folder,
        };
        double first = double.NaN, last = double.NaN;
        var lines = new List<string>();
        double cpuBefore = ChildCpu.Milliseconds();
        long started = Stopwatch.GetTimestamp();
        using Process process = Process.Start(start)!;
        while (process.StandardOutput.ReadLine() is { } line)
        {
            double ms = Stopwatch.GetElapsedTime(started).TotalMilliseconds;
            if (lines.Count == 0)
                first = ms;
            if (line.StartsWith("done", StringComparison.Ordinal))
                last = ms;
            lines.Add(line);
        }
        process.WaitForExit();
        double exit = Stopwatch.GetElapsedTime(started).TotalMilliseconds;
        double cpu = ChildCpu.Milliseconds() - cpuBefore;
        if (process.ExitCode != 0 || double.IsNaN(last))
            throw new InvalidOperationException($"{variant.Name} failed (exit {process.ExitCode}):\n{string.Join('\n', lines)}");
        return (new Timing(first, last, exit, cpu), string.Join('\n', lines));
    }
}
