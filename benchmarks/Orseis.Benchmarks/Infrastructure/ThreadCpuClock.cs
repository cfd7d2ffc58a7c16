using System.Runtime.InteropServices;
using Perfolizer.Horology;

namespace Orseis.Benchmarks.Infrastructure;

/// <summary>
/// A BenchmarkDotNet clock that reads the CPU time of the calling thread (Linux <c>CLOCK_THREAD_CPUTIME_ID</c>, in
/// nanoseconds) instead of wall time. Used for SQLite, whose whole query runs on the benchmark's thread without waiting
/// for anything: there it measures the same work as a wall clock on an idle machine, but does not count the time the
/// thread spends preempted by other processes, which on a shared 2-core machine is most of the noise.
/// </summary>
public sealed partial class ThreadCpuClock : IClock
{
    /// <summary>The one instance.</summary>
    public static readonly ThreadCpuClock Instance = new();

    private const int ClockThreadCpuTimeId = 3;

    private ThreadCpuClock()
    {
    }

    /// <inheritdoc/>
    public string Title => "ThreadCpuTime";

    /// <inheritdoc/>
    public bool IsAvailable => OperatingSystem.IsLinux() && TryRead(out _);

    /// <inheritdoc/>
    public Frequency Frequency => Frequency.GHz;

    /// <inheritdoc/>
    public long GetTimestamp() => TryRead(out long nanoseconds) ? nanoseconds : throw new InvalidOperationException("clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed.");

    private static bool TryRead(out long nanoseconds)
    {
        if (ClockGetTime(ClockThreadCpuTimeId, out TimeSpec time) != 0)
        {
            nanoseconds = 0;
            return false;
        }

        nanoseconds = (time.Seconds * 1_000_000_000L) + time.Nanoseconds;
        return true;
    }

    [LibraryImport("libc", EntryPoint = "clock_gettime")]
    private static partial int ClockGetTime(int clockId, out TimeSpec time);

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }
}
