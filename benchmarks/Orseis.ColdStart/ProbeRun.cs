using System.Diagnostics;

namespace Orseis.ColdStart;

/// <summary>Publishes a probe, and runs it once as a whole process on a fresh SQLite file.</summary>
internal static class ProbeRun
{
    private static readonly Dictionary<Feed, string> Packed = [];

    public static void Publish(Variant variant, string root, string work)
    {
        string project = Path.Combine(root, "benchmarks", variant.Project, variant.Project + ".csproj");
        string arguments = $"publish \"{project}\" -c Release {variant.Properties} -o \"{variant.Output(work)}\" " +
            $"--artifacts-path \"{Path.Combine(work, "artifacts-" + variant.Name)}\" -nologo";
        if (variant.Feed is { } feed)
        {
            // Restored as a user restores the package, into packages of the variant's own: the machine's NuGet cache may
            // hold an older pack of the same version.
            string packages = Path.Combine(work, "packages-" + variant.Name);
            if (Directory.Exists(packages))
                Directory.Delete(packages, recursive: true);
            arguments += $" -p:OrseisFeed=\"{feed.Folder(work)}\" -p:OrseisPackageVersion={Pack(feed, root, work)} " +
                $"-p:RestorePackagesPath=\"{packages}\"";
        }

        Dotnet(arguments, "publishing " + variant.Name);
    }

    /// <summary>Packs src/Orseis into the feed's folder, once a run; returns the package's version.</summary>
    private static string Pack(Feed feed, string root, string work)
    {
        if (Packed.TryGetValue(feed, out string? version))
            return version;
        string folder = feed.Folder(work);
        if (Directory.Exists(folder))
            Directory.Delete(folder, recursive: true);
        string project = Path.Combine(root, "src", "Orseis", "Orseis.csproj");
        Dotnet($"pack \"{project}\" -c Release {feed.PackProperties} -o \"{folder}\" -nologo", "packing " + feed.Name);
        string package = Directory.GetFiles(folder, "Orseis.*.nupkg").Single();
        version = Path.GetFileNameWithoutExtension(package)["Orseis.".Length..];
        Packed[feed] = version;
        return version;
    }

    private static void Dotnet(string arguments, string what)
    {
        Console.Error.WriteLine($"{what}: dotnet {arguments}");
        using Process process = Process.Start(new ProcessStartInfo("dotnet", arguments) { RedirectStandardOutput = true })!;
        string output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        if (process.ExitCode != 0)
            throw new InvalidOperationException($"{what} failed (exit {process.ExitCode}):\n{output}");
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
