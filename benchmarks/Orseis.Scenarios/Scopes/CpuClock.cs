using System.Diagnostics;
using System.Globalization;

namespace Orseis.Scenarios.Scopes;

/// <summary>
/// CPU time read from Linux's /proc: the whole machine's busy and total time (<c>/proc/stat</c>), and one process's user
/// and system time (<c>/proc/PID/stat</c>, here the MariaDB server named by ORSEIS_MYSQL_PID). Null where /proc is not
/// there or the process is unknown.
/// </summary>
internal static class CpuClock
{
    private static readonly Lazy<double> TicksPerSecond = new(ClockTicks);

    /// <summary>The machine's CPU time so far, busy and in all (every core), in seconds.</summary>
    public static (double Busy, double Total)? Machine()
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

    /// <summary>The MariaDB server's CPU time so far (user and system), in seconds, when ORSEIS_MYSQL_PID names it.</summary>
    public static double? Server()
    {
        if (Environment.GetEnvironmentVariable("ORSEIS_MYSQL_PID") is not { Length: > 0 } pid)
            return null;
        try
        {
            string stat = File.ReadAllText($"/proc/{pid}/stat");
            // The fields after the command name, which is in parentheses and may hold spaces: utime and stime are 14th and 15th.
            string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
            return (Number(fields[11]) + Number(fields[12])) / TicksPerSecond.Value;
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
            using Process getconf = Process.Start(new ProcessStartInfo("getconf", ["CLK_TCK"]) { RedirectStandardOutput = true })!;
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
