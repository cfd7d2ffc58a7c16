using System.Diagnostics;
using System.Globalization;
using MySqlConnector;

namespace Orseis.WebStudy;

/// <summary>What the results say about the machine and the code: load averages, cores, CPU, versions, the commit.</summary>
internal static class MachineState
{
    /// <summary>The 1-minute load average (/proc/loadavg), or null off Linux.</summary>
    public static double? LoadAverage()
    {
        try
        {
            return double.Parse(File.ReadAllText("/proc/loadavg").Split(' ')[0], CultureInfo.InvariantCulture);
        }
        catch (Exception error) when (error is IOException or UnauthorizedAccessException or FormatException)
        {
            return null;
        }
    }

    /// <summary>The CPU's model name (/proc/cpuinfo), or null.</summary>
    public static string? CpuModel()
    {
        try
        {
            string? line = File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal));
            return line?[(line.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim();
        }
        catch (Exception error) when (error is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>The checked-out commit (short), with " plus uncommitted changes" when tracked files differ from it; null
    /// outside a git work tree.</summary>
    public static string? Commit(string root)
    {
        string? commit = Git(root, "rev-parse", "--short", "HEAD");
        if (commit is not { Length: > 0 })
            return null;
        return Git(root, "status", "--porcelain", "--untracked-files=no") is { Length: > 0 } ? commit + " plus uncommitted changes" : commit;
    }

    private static string? Git(string root, params string[] args)
    {
        try
        {
            var start = new ProcessStartInfo("git", ["-C", root, .. args]) { RedirectStandardOutput = true, RedirectStandardError = true };
            using Process git = Process.Start(start)!;
            _ = git.StandardError.ReadToEndAsync();
            string text = git.StandardOutput.ReadToEnd().Trim();
            git.WaitForExit();
            return git.ExitCode == 0 ? text : null;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return null;
        }
    }

    /// <summary>The server's version and, when its pid file is readable here (a server on this machine), its process id.</summary>
    public static async Task<(string Version, int? Pid)> ServerAsync(string connectionString)
    {
        await using var connection = new MySqlConnection(connectionString);
        await connection.OpenAsync();
        await using MySqlCommand command = connection.CreateCommand();
        command.CommandText = "select version(), @@pid_file";
        await using MySqlDataReader reader = await command.ExecuteReaderAsync();
        await reader.ReadAsync();
        string version = reader.GetString(0);
        string pidFile = reader.GetString(1);
        int? pid = null;
        try
        {
            if (int.TryParse(File.ReadAllText(pidFile).Trim(), CultureInfo.InvariantCulture, out int value))
                pid = value;
        }
        catch (Exception error) when (error is IOException or UnauthorizedAccessException)
        {
            // a server elsewhere, or not ours to read: its CPU is counted with the others'
        }

        return (version, pid);
    }
}
