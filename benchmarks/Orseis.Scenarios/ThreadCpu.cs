using System.Runtime.InteropServices;

namespace Orseis.Scenarios;

/// <summary>The calling thread's CPU time (Linux <c>CLOCK_THREAD_CPUTIME_ID</c>).</summary>
internal static class ThreadCpu
{
    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }

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
}
