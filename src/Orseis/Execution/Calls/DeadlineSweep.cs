using System.Collections.Concurrent;
using System.Diagnostics;

namespace Orseis.Execution;

/// <summary>
/// The deadlines of every <see cref="CallWatch"/>, checked by one shared timer a few times a second instead of a timer
/// per call: creating and disposing a <see cref="Timer"/> for each call with a command timeout doubled the cost of a
/// call on a kept connection (the CancellationOverhead benchmark). A deadline is a command timeout of a second or more,
/// so firing up to <see cref="Period"/> late is immaterial.
/// </summary>
internal static class DeadlineSweep
{
    public static readonly TimeSpan Period = TimeSpan.FromMilliseconds(100);

    private static readonly ConcurrentDictionary<CallWatch, long> Due = new(ReferenceEqualityComparer.Instance);
    private static readonly Lock Starting = new();
    private static Timer? _timer;

    public static void Add(CallWatch watch, TimeSpan after)
    {
        Due[watch] = Stopwatch.GetTimestamp() + (long)(after.TotalSeconds * Stopwatch.Frequency);
        if (Volatile.Read(ref _timer) is null)
            Start();
    }

    public static void Remove(CallWatch watch) => Due.TryRemove(watch, out _);

    private static void Start()
    {
        lock (Starting)
        {
            // The timer lives as long as the process: it costs one check per period while no call is watched.
            _timer ??= new Timer(static _ => Sweep(), null, Period, Period);
        }
    }

    private static void Sweep()
    {
        long now = Stopwatch.GetTimestamp();
        foreach (KeyValuePair<CallWatch, long> entry in Due)
        {
            if (entry.Value <= now && Due.TryRemove(entry.Key, out _))
                entry.Key.DeadlineReached();
        }
    }
}
