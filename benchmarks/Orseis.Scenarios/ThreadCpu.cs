using System.Runtime.InteropServices;

namespace Orseis.Scenarios;

/// <summary>
/// The calling thread's CPU time (Linux <c>CLOCK_THREAD_CPUTIME_ID</c>), and the user-mode part of it
/// (<c>getrusage(RUSAGE_THREAD)</c>): the kernel's part of a round trip (sockets, sleeping and waking) moves with where
/// the scheduler puts the threads; the user-mode part is the code's own.
/// </summary>
internal static class ThreadCpu
{
    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct Usage
    {
        public long UserSeconds;
        public long UserMicroseconds;
        public long SystemSeconds;
        public long SystemMicroseconds;
        public UsageRest Rest;
    }

    // The 14 longs of struct rusage after its two timevals, inline: a managed array here would make the struct
    // non-blittable, and each call would allocate one, counted in the block's bytes.
    [System.Runtime.CompilerServices.InlineArray(14)]
    private struct UsageRest
    {
        private long _first;
    }

    [DllImport("libc", EntryPoint = "getrusage")]
#pragma warning disable SYSLIB1054, CA5392 // as below
    private static extern int GetRUsage(int who, out Usage usage);
#pragma warning restore SYSLIB1054, CA5392

    [DllImport("libc", EntryPoint = "clock_gettime")]
#pragma warning disable SYSLIB1054, CA5392 // a benchmark helper: one libc call, no marshalling to generate
    private static extern int ClockGetTime(int clock, out TimeSpec time);
#pragma warning restore SYSLIB1054, CA5392

    /// <summary>CPU time of the calling thread, in nanoseconds.</summary>
    public static long Nanoseconds()
    {
        _ = ClockGetTime(3, out TimeSpec t);
        return (t.Seconds * 1_000_000_000) + t.Nanoseconds;
    }

    /// <summary>User-mode CPU time of the calling thread, in nanoseconds (microsecond resolution).</summary>
    public static long UserNanoseconds()
    {
        _ = GetRUsage(1, out Usage u); // RUSAGE_THREAD
        return ((u.UserSeconds * 1_000_000) + u.UserMicroseconds) * 1000;
    }
}
