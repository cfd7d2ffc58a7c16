using System.Runtime;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// The calling thread and its own time spent compiling code so far (<see cref="JitInfo.GetCompilationTime"/> for the current
/// thread), read at a synchronous first-wave open's start and end (<see cref="ColdStarts"/>): a synchronous open holds its
/// thread throughout, so the difference is what that open's thread compiled while it opened.
/// </summary>
internal readonly record struct ColdOpenThread(int ThreadId, double CompileMs)
{
    /// <summary>The calling thread's figures now.</summary>
    public static ColdOpenThread Now() =>
        new(Environment.CurrentManagedThreadId, JitInfo.GetCompilationTime(currentThread: true).TotalMilliseconds);
}
