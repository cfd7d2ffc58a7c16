using System.Diagnostics;
using Microsoft.Diagnostics.NETCore.Client;

namespace Orseis.Trace.Targets;

/// <summary>A .NET process that publishes a diagnostic port, as <c>orseis-trace ps</c> lists it.</summary>
/// <param name="Id">The process id.</param>
/// <param name="Name">The name to give <c>-n</c>: the app's name (<c>Shop.Api</c> for <c>dotnet Shop.Api.dll</c> too).</param>
/// <param name="ProcessName">The process's own name (<c>dotnet</c> for <c>dotnet app.dll</c>).</param>
/// <param name="CommandLine">The command line, as far as the system shows it.</param>
/// <param name="Orseis">Whether it loaded Orseis.dll; null where that cannot be read (not Linux).</param>
internal sealed record DotnetProcess(int Id, string Name, string ProcessName, string CommandLine, bool? Orseis)
{
    /// <summary>The .NET processes of this user, by id.</summary>
    public static List<DotnetProcess> List()
    {
        var list = new List<DotnetProcess>();
        foreach (int id in PublishedIds())
        {
            if (Describe(id) is { } process)
                list.Add(process);
        }

        return list;
    }

    /// <summary>Whether a diagnostic port of process <paramref name="id"/> is published.</summary>
    public static bool IsDotnet(int id) => PublishedIds().Contains(id);

    /// <summary>
    /// The ids of processes with a diagnostic port. On Linux and macOS the runtime's socket,
    /// <c>$TMPDIR/dotnet-diagnostic-PID-COOKIE-socket</c>, is looked for directly: the client library's own listing reads every
    /// process's environment and fails on one it may not read.
    /// </summary>
    private static List<int> PublishedIds()
    {
        if (OperatingSystem.IsWindows())
            return [.. DiagnosticsClient.GetPublishedProcesses().Distinct().Order()];
        var ids = new SortedSet<int>();
        foreach (string socket in Directory.EnumerateFiles(Path.GetTempPath(), "dotnet-diagnostic-*-socket"))
        {
            string[] parts = Path.GetFileName(socket).Split('-');
            if (parts.Length >= 4 && int.TryParse(parts[2], System.Globalization.CultureInfo.InvariantCulture, out int id)
                && IsRunning(id) && RunsTheRuntime(id) != false)
            {
                ids.Add(id);
            }
        }

        return [.. ids];
    }

    /// <summary>
    /// Whether a process with this id runs. On Linux /proc/ID also exists for a thread's id, and a stale socket's id may now
    /// be a thread of another process: only a thread-group leader (Tgid equal to the id) is a process.
    /// </summary>
    public static bool IsRunning(int id)
    {
        if (OperatingSystem.IsLinux())
            return IsProcessLeader(id);
        try
        {
            using var process = Process.GetProcessById(id);
            return !process.HasExited;
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException)
        {
            return false;
        }
    }

    /// <summary>The process as listed, or null when it has exited meanwhile.</summary>
    public static DotnetProcess? Describe(int id)
    {
        try
        {
            using var process = Process.GetProcessById(id);
            string[] args = CommandLineOf(id, process);
            return new DotnetProcess(id, AppName(process.ProcessName, args), process.ProcessName, string.Join(' ', args), LoadedOrseis(id));
        }
        catch (Exception e) when (e is ArgumentException or InvalidOperationException or System.ComponentModel.Win32Exception)
        {
            return null;
        }
    }

    /// <summary>
    /// Whether process <paramref name="id"/> mapped Orseis.dll into memory (Linux: /proc/ID/maps) as an app with pools does.
    /// orseis-trace itself carries Orseis.dll for the replay: a process that mapped Orseis.Trace.dll has no pools to watch.
    /// </summary>
    public static bool? LoadedOrseis(int id) => Maps(id, "/Orseis.Trace.dll") == true ? false : Maps(id, "/Orseis.dll");

    /// <summary>
    /// Whether process <paramref name="id"/> runs the .NET runtime (Linux: libcoreclr.so in /proc/ID/maps). A socket left by
    /// a .NET process that died can carry the id of a later process that is not .NET at all.
    /// </summary>
    private static bool? RunsTheRuntime(int id) => Maps(id, "/libcoreclr.so");

    private static bool? Maps(int id, string fileSuffix)
    {
        if (!OperatingSystem.IsLinux())
            return null;
        try
        {
            foreach (string line in File.ReadLines($"/proc/{id}/maps"))
            {
                if (line.EndsWith(fileSuffix, StringComparison.Ordinal))
                    return true;
            }

            return false;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>Whether <paramref name="name"/> names this process: the app name, or the process name.</summary>
    public bool IsNamed(string name) =>
        string.Equals(Name, name, StringComparison.OrdinalIgnoreCase)
        || string.Equals(ProcessName, name, StringComparison.OrdinalIgnoreCase);

    private static string[] CommandLineOf(int id, Process process)
    {
        if (OperatingSystem.IsLinux())
        {
            try
            {
                string raw = File.ReadAllText($"/proc/{id}/cmdline");
                string[] args = raw.Split('\0', StringSplitOptions.RemoveEmptyEntries);
                if (args.Length > 0)
                    return args;
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
            }
        }

        return [process.ProcessName];
    }

    /// <summary><c>dotnet app.dll</c> is named for app.dll; an apphost for its own file.</summary>
    private static string AppName(string processName, string[] args)
    {
        // An apphost's name may hold dots (Shop.Api): only a Windows .exe is an extension here.
        string first = Path.GetFileName(args[0]);
        if (first.EndsWith(".exe", StringComparison.OrdinalIgnoreCase))
            first = first[..^4];
        if (string.Equals(first, "dotnet", StringComparison.OrdinalIgnoreCase))
        {
            string? dll = args.Skip(1).FirstOrDefault(a => a.EndsWith(".dll", StringComparison.OrdinalIgnoreCase));
            if (dll is not null)
                return Path.GetFileNameWithoutExtension(dll);
        }

        return first.Length > 0 ? first : processName;
    }

    private static bool IsProcessLeader(int id)
    {
        try
        {
            foreach (string line in File.ReadLines($"/proc/{id}/status"))
            {
                if (line.StartsWith("Tgid:", StringComparison.Ordinal))
                {
                    return int.TryParse(line.AsSpan(5).Trim(), System.Globalization.CultureInfo.InvariantCulture, out int tgid)
                        && tgid == id;
                }
            }
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }

        return false;
    }
}
