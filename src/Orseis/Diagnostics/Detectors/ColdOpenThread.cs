using System.Diagnostics;
using System.Globalization;
using System.Runtime;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// The calling thread and its own time spent compiling code so far (<see cref="JitInfo.GetCompilationTime"/> for the current
/// thread), and, on Linux, its time on a CPU and waiting in the run queue for one so far (<c>/proc/thread-self/schedstat</c>;
/// NaN elsewhere), read at a synchronous first-wave open's start and end (<see cref="ColdStarts"/>): a synchronous open
/// holds its thread throughout, so the differences are what that open's thread compiled, ran and waited for a CPU while it
/// opened; the rest of the open's time the thread was blocked (on the server's socket, or on a lock).
/// </summary>
internal readonly record struct ColdOpenThread(
    int ThreadId, double CompileMs, double OnCpuMs = double.NaN, double RunQueueMs = double.NaN, long Timestamp = 0)
{
    private static int _schedstat = OperatingSystem.IsLinux() ? 1 : 0; // 0 once it could not be read

    /// <summary>The calling thread's figures now.</summary>
    public static ColdOpenThread Now()
    {
        double compileMs = JitInfo.GetCompilationTime(currentThread: true).TotalMilliseconds;
        (double onCpuMs, double runQueueMs) = Schedstat();
        return new(Environment.CurrentManagedThreadId, compileMs, onCpuMs, runQueueMs, Stopwatch.GetTimestamp());
    }

    /// <summary>
    /// How long the thread was blocked from <paramref name="start"/> to this reading: neither on a CPU nor waiting in the run
    /// queue for one (on a socket, or on a lock); NaN where either reading lacks the scheduler's figures.
    /// </summary>
    public double BlockedSinceMs(in ColdOpenThread start) =>
        double.IsNaN(OnCpuMs) || double.IsNaN(start.OnCpuMs) || Timestamp == 0 || start.Timestamp == 0
            ? double.NaN
            : Math.Max(0, Stopwatch.GetElapsedTime(start.Timestamp, Timestamp).TotalMilliseconds
                          - Math.Max(0, OnCpuMs - start.OnCpuMs) - Math.Max(0, RunQueueMs - start.RunQueueMs));

    /// <summary>The calling thread's time on a CPU and in the run queue so far, in ms; NaN where not readable.</summary>
    private static (double OnCpuMs, double RunQueueMs) Schedstat()
    {
        if (Volatile.Read(ref _schedstat) == 0)
            return (double.NaN, double.NaN);
        try
        {
            // "on-CPU ns, run-queue wait ns, timeslices"
            string text = File.ReadAllText("/proc/thread-self/schedstat");
            string[] parts = text.Split(' ', 3, StringSplitOptions.RemoveEmptyEntries);
            if (parts.Length >= 2
                && long.TryParse(parts[0], NumberStyles.None, CultureInfo.InvariantCulture, out long onCpu)
                && long.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out long waited))
            {
                return (onCpu / 1e6, waited / 1e6);
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
        }

        Volatile.Write(ref _schedstat, 0);
        return (double.NaN, double.NaN);
    }
}
