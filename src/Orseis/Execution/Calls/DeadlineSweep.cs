using System.Collections.Concurrent;

namespace Orseis.Execution.Calls;

/// <summary>
/// The deadlines of every <see cref="CallWatch"/> on one clock, checked by one timer a few times a second instead of a
/// timer per call: creating and disposing a <see cref="Timer"/> for each call with a command timeout doubled the cost of
/// a call on a kept connection (the CancellationOverhead benchmark). A deadline is a command timeout of a second or
/// more, so firing up to <see cref="Period"/> late is immaterial.
/// </summary>
/// <remarks>
/// Every database on the system clock shares <see cref="System"/>, so a process has one sweep timer whatever the number
/// of databases and calls. A database given another clock (<see cref="Diagnostics.DiagnosticsOptions.TimeProvider"/>,
/// a test's fake one) gets a sweep of its own on that clock (<see cref="For"/>), and so does the grace of its watches.
/// </remarks>
internal sealed class DeadlineSweep
{
    public static readonly TimeSpan Period = TimeSpan.FromMilliseconds(100);

    // Made at the first deadline: most processes never watch a call, and making it at start costs the JIT four methods.
    private ConcurrentDictionary<CallWatch, long>? _due;
    private readonly Lock _starting = new();
    private readonly double _ticksPerSecond;
    private ITimer? _timer;

    private DeadlineSweep(TimeProvider time)
    {
        Time = time;
        _ticksPerSecond = time.TimestampFrequency;
    }

    /// <summary>The sweep of <see cref="TimeProvider.System"/>, shared by every database on the system clock.</summary>
    public static DeadlineSweep System { get; } = new(TimeProvider.System);

    /// <summary>The clock the deadlines are read on, and the grace of a stopped call is timed on.</summary>
    public TimeProvider Time { get; }

    /// <summary>The sweep for <paramref name="time"/>: the shared <see cref="System"/> one, or a new one for any other clock.</summary>
    public static DeadlineSweep For(TimeProvider time) => time == TimeProvider.System ? System : new DeadlineSweep(time);

    public void Add(CallWatch watch, TimeSpan after)
    {
        ConcurrentDictionary<CallWatch, long> due = Volatile.Read(ref _due) ?? Due();
        due[watch] = Time.GetTimestamp() + (long)(after.TotalSeconds * _ticksPerSecond);
        if (Volatile.Read(ref _timer) is null)
            Start();
    }

    /// <summary>Forgets <paramref name="watch"/>'s deadline; nothing to do when no deadline was ever added.</summary>
    public void Remove(CallWatch watch) => Volatile.Read(ref _due)?.TryRemove(watch, out _);

    /// <summary>The deadlines, made once: the first thread's dictionary wins, so no deadline goes to a lost one.</summary>
    private ConcurrentDictionary<CallWatch, long> Due()
    {
        var made = new ConcurrentDictionary<CallWatch, long>(ReferenceEqualityComparer.Instance);
        return Interlocked.CompareExchange(ref _due, made, null) ?? made;
    }

    private void Start()
    {
        lock (_starting)
        {
            // The timer lives as long as the sweep (the process, for the system clock's): it costs one check per period
            // while no call is watched.
            // Without the first caller's execution context, which the timer would otherwise keep alive for the process.
            AsyncFlowControl? flow = ExecutionContext.IsFlowSuppressed() ? null : ExecutionContext.SuppressFlow();
            try
            {
                _timer ??= Time.CreateTimer(static state => ((DeadlineSweep)state!).Sweep(), this, Period, Period);
            }
            finally
            {
                flow?.Undo();
            }
        }
    }

    private void Sweep()
    {
        long now = Time.GetTimestamp();
        if (Volatile.Read(ref _due) is not { } due)
            return;
        foreach (KeyValuePair<CallWatch, long> entry in due)
        {
            if (entry.Value <= now && due.TryRemove(entry.Key, out _))
                entry.Key.DeadlineReached();
        }
    }
}
