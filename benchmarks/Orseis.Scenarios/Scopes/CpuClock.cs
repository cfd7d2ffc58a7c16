using System.Diagnostics;
using System.Globalization;

namespace Orseis.Scenarios.Scopes;

/// <summary>
/// CPU time read from Linux: the whole machine's busy and total time (<c>/proc/stat</c>), a process's user and system
/// time (<c>/proc/PID/stat</c>: the app, and the MariaDB server named by ORSEIS_MYSQL_PID), and that of this process's
/// children that have ended and been waited for (cutime and cstime in <c>/proc/self/stat</c>: hey, once it exited). Null
/// where not available.
/// </summary>
internal static class CpuClock
{
    private static readonly Lazy<double> TicksPerSecond = new(ClockTicks);

    /// <summary>One reading, seconds so far.</summary>
    internal readonly record struct Reading(double? MachineBusy, double? MachineTotal, double? App, double? Server, double? Children);

    /// <summary>Reads every clock now; <paramref name="appPid"/> is the app's process.</summary>
    public static Reading Read(int appPid)
    {
        (double Busy, double Total)? machine = Machine();
        return new Reading(
            machine?.Busy, machine?.Total, Process(appPid.ToString(CultureInfo.InvariantCulture)),
            Environment.GetEnvironmentVariable("ORSEIS_MYSQL_PID") is { Length: > 0 } server ? Process(server) : null,
            Process("self", children: true));
    }

    private static (double Busy, double Total)? Machine()
    {
        try
        {
            string line = File.ReadLines("/proc/stat").First(l => l.StartsWith("cpu ", StringComparison.Ordinal));
            double[] ticks = [.. line.Split(' ', StringSplitOptions.RemoveEmptyEntries).Skip(1).Select(Number)];
            double idle = ticks[3] + (ticks.Length > 4 ? ticks[4] : 0); // idle and iowait
            double total = ticks.Take(8).Sum(); // user nice system idle iowait irq softirq steal (guest time is inside user)
            return ((total - idle) / TicksPerSecond.Value, total / TicksPerSecond.Value);
        }
        catch (Exception error) when (error is IOException or UnauthorizedAccessException or InvalidOperationException or FormatException)
        {
            return null;
        }
    }

    private static double? Process(string pid, bool children = false)
    {
        try
        {
            string stat = File.ReadAllText($"/proc/{pid}/stat");
            // The fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 14th and
            // 15th, cutime and cstime (children waited for) the 16th and 17th.
            string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
            int first = children ? 13 : 11;
            return (Number(fields[first]) + Number(fields[first + 1])) / TicksPerSecond.Value;
        }
        catch (Exception error) when (error is IOException or UnauthorizedAccessException or FormatException or IndexOutOfRangeException)
        {
            return null;
        }
    }

    private static double Number(string text) => double.Parse(text, CultureInfo.InvariantCulture);

    private static double ClockTicks()
    {
        try
        {
            var start = new ProcessStartInfo("getconf", ["CLK_TCK"]) { RedirectStandardOutput = true };
            using Process getconf = System.Diagnostics.Process.Start(start)!;
            string text = getconf.StandardOutput.ReadToEnd().Trim();
            getconf.WaitForExit();
            return double.TryParse(text, CultureInfo.InvariantCulture, out double ticks) && ticks > 0 ? ticks : 100;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return 100; // Linux's USER_HZ nearly everywhere
        }
    }
}
