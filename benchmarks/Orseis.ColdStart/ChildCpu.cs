using System.Runtime.InteropServices;

namespace Orseis.ColdStart;

/// <summary>The CPU time (user and system) of this process' children that have exited: read before and after a probe
/// runs, the difference is the probe's own CPU time, which a loaded machine stretches far less than its wall time.</summary>
internal static partial class ChildCpu
{
    private const int RusageChildren = -1;

    public static double Milliseconds()
    {
        if (!OperatingSystem.IsLinux())
            return double.NaN;
        // struct rusage on 64-bit Linux: ru_utime and ru_stime (two timevals: seconds, microseconds), then 14 longs.
        var usage = new long[18];
        if (GetRusage(RusageChildren, usage) != 0)
            return double.NaN;
        return (usage[0] + usage[2]) * 1000.0 + (usage[1] + usage[3]) / 1000.0;
    }

    [LibraryImport("libc", EntryPoint = "getrusage")]
    private static partial int GetRusage(int who, [Out] long[] usage);
}
