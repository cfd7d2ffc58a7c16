// Compiled into the integration tests and the scenario suite (linked, not copied).
namespace Orseis.Testing;

/// <summary>
/// A CPU-bound burst on the thread pool, as a worker that computes before it queries: it grows the pool, and hill
/// climbing then lowers the number of threads it lets run work below the threads that exist (seen: 13 threads, 7 run).
/// </summary>
internal static class CpuBurst
{
    /// <summary>Sixty-four loops of 2 ms computations yielding between them, for <paramref name="length"/>.</summary>
    public static Task RunAsync(TimeSpan length)
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();
        return Task.WhenAll(Enumerable.Range(0, 64).Select(_ => Task.Run(async () =>
        {
            while (clock.Elapsed < length)
            {
                var spin = System.Diagnostics.Stopwatch.StartNew();
                while (spin.Elapsed.TotalMilliseconds < 2)
                {
                }

                await Task.Yield();
            }
        })));
    }
}
