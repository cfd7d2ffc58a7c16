using System.Diagnostics;
using System.Runtime;

/// <summary>With COLDSTART_CHECKPOINTS set, writes to standard error, at each mark, the milliseconds since the process
/// started, the CPU time, and the methods the JIT compiled so far and its time: where a cold start goes. With
/// COLDSTART_CHECKPOINTS=assemblies, also the assemblies loaded since the previous mark.</summary>
internal static class Checkpoint
{
    private static readonly bool On = Environment.GetEnvironmentVariable("COLDSTART_CHECKPOINTS") != null;

    private static readonly bool Assemblies = Environment.GetEnvironmentVariable("COLDSTART_CHECKPOINTS") == "assemblies";

    private static readonly HashSet<string> Seen = [];

    public static void Mark(string name)
    {
        if (!On)
            return;
        double sinceStart = (DateTime.Now - Process.GetCurrentProcess().StartTime).TotalMilliseconds;
        Console.Error.WriteLine(FormattableString.Invariant(
            $"{name}: {sinceStart:F0} ms since start, cpu {Environment.CpuUsage.TotalTime.TotalMilliseconds:F0} ms, jitted {JitInfo.GetCompiledMethodCount()} methods in {JitInfo.GetCompilationTime().TotalMilliseconds:F0} ms"));
        if (!Assemblies)
            return;
        foreach (System.Reflection.Assembly assembly in AppDomain.CurrentDomain.GetAssemblies())
        {
            if (assembly.GetName().Name is { } loaded && Seen.Add(loaded))
                Console.Error.WriteLine($"  loaded {loaded}");
        }
    }
}
