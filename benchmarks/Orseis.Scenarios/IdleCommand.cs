using System.Globalization;
using System.Text;

namespace Orseis.Scenarios;

/// <summary>
/// What the detectors cost a process that makes no calls: the background work they start (the thread-pool probe, the
/// runtime event listener it reads, timers) in CPU time and context switches per second, read from <c>/proc</c> over a
/// quiet interval of an <see cref="OverheadChild"/> with <c>Detectors = None</c> and one with the detectors asked for,
/// each in several fresh processes. Linux only.
/// </summary>
internal static class IdleCommand
{
    /// <param name="provider"><c>mysql</c> or <c>sqlite</c>.</param>
    /// <param name="against">The detectors compared with None.</param>
    /// <param name="repeats">Fresh processes per side.</param>
    /// <param name="seconds">How long each process is watched.</param>
    public static async Task<int> RunAsync(string provider, string against, int repeats, int seconds)
    {
        if (!Directory.Exists("/proc/self/task"))
        {
            Console.Error.WriteLine("idle: needs Linux's /proc (per-thread context switches)");
            return 2;
        }

        var rows = new StringBuilder();
        rows.AppendLine("| detectors | CPU per second (median, range) | context switches per second (median, range) |");
        rows.AppendLine("|---|---:|---:|");
        foreach (string detectors in new[] { "None", against })
        {
            var cpu = new List<double>();
            var switches = new List<double>();
            for (int r = 0; r < repeats; r++)
            {
                (double cpuMs, double switchCount) = await WatchAsync(provider, detectors, seconds);
                cpu.Add(cpuMs / seconds);
                switches.Add(switchCount / seconds);
                Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"idle: {detectors} process {r + 1}/{repeats}: {cpuMs / seconds:0.00} ms CPU and {switchCount / seconds:0} context switches per second"));
            }

            rows.AppendLine(string.Create(CultureInfo.InvariantCulture,
                $"| {detectors} | {PairStatistics.Median(cpu):0.00} ms ({cpu.Min():0.00}-{cpu.Max():0.00}) | {PairStatistics.Median(switches):0} ({switches.Min():0}-{switches.Max():0}) |"));
        }

        Console.WriteLine(rows.ToString());
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{repeats} fresh processes per side, each watched for {seconds} s after its warm-up with no calls running; CPU is the whole process's (every thread), 1 ms per second being 0.1 % of a core."));
        return 0;
    }

    private static async Task<(double CpuMs, double Switches)> WatchAsync(string provider, string detectors, int seconds)
    {
        using OverheadCommand.Side side = await OverheadCommand.Side.StartAsync(provider, detectors, listeners: false);
        await Task.Delay(TimeSpan.FromSeconds(2)); // let the warm-up's tiering and GC settle
        int pid = side.ProcessId;
        long cpuBefore = CpuTicks(pid);
        Dictionary<string, long> before = Switches(pid);
        await Task.Delay(TimeSpan.FromSeconds(seconds));
        long cpuAfter = CpuTicks(pid);
        Dictionary<string, long> after = Switches(pid);
        long switched = after.Sum(t => t.Value - before.GetValueOrDefault(t.Key));
        return ((cpuAfter - cpuBefore) * 10.0, switched); // /proc counts CPU in 10 ms clock ticks (USER_HZ = 100)
    }

    // utime + stime, fields 14 and 15 of /proc/PID/stat, counted after the command name's closing parenthesis.
    private static long CpuTicks(int pid)
    {
        string stat = File.ReadAllText($"/proc/{pid}/stat");
        string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        return long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture);
    }

    // Voluntary plus involuntary context switches of each thread alive now, by thread id.
    private static Dictionary<string, long> Switches(int pid)
    {
        var result = new Dictionary<string, long>();
        foreach (string task in Directory.EnumerateDirectories($"/proc/{pid}/task"))
        {
            try
            {
                result[Path.GetFileName(task)] = File.ReadLines(Path.Combine(task, "status"))
                    .Where(l => l.Contains("ctxt_switches", StringComparison.Ordinal))
                    .Sum(l => long.Parse(l[(l.IndexOf(':') + 1)..].Trim(), CultureInfo.InvariantCulture));
            }
            catch (IOException)
            {
                // the thread ended between listing and reading
            }
        }

        return result;
    }
}
