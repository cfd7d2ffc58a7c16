using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// How busy the CPUs were while callers queued for a connection, for the pool-size advice (<see cref="PoolSizeAdvisor"/>):
/// a queue on a pool whose connections are held longer than they need because the CPUs are busy is the CPU's: more
/// connections add no CPU and lengthen every hold (though they can still pass more, or less, by what the queue itself
/// costs: docs/results/capacity/cpu-bound-2026-12-02.md). Busy is the larger of this process's CPU time over its
/// CPUs (<see cref="Environment.ProcessorCount"/>, which honours a container's CPU limit) and, where the system exposes
/// it (Linux' <c>/proc/stat</c>), the whole machine's busy share, which counts a database server or other work on the same
/// CPUs. Read only when the advice is worked out (at most every <see cref="PoolSizeAdvisor.CheckEvery"/> while callers
/// queue, and when a report is made), never on a call's path otherwise. The CPU clocks run in real time: with another
/// clock (a test's), readings come from <paramref name="read"/>, or say the CPUs were idle.
/// </summary>
internal sealed class PoolSizeCpu(TimeProvider time, Func<PoolSizeCpu.Reading>? read = null)
{
    /// <summary>Readings further apart than this are not one stretch of queueing: the time between them is not counted.</summary>
    internal static readonly TimeSpan Contiguous = TimeSpan.FromSeconds(1);

    private readonly Lock _sync = new();
    private readonly Func<Reading> _read = Reader(time, read);
    private readonly Reading _first = Reader(time, read)();
    private Reading _last;
    private double _busyQueued; // busy seconds x CPUs, summed over stretches between readings while callers queued
    private double _processQueued; // this process's CPU seconds over the same stretches
    private double _secondsQueued;

    /// <summary>
    /// One reading of the clocks: when, this process's CPU time, and the machine's busy and total jiffies (0 if unknown).
    /// </summary>
    internal readonly record struct Reading(long At, TimeSpan Process, long MachineBusy, long MachineAll);

    /// <summary>
    /// Takes a reading; when <paramref name="queuing"/> (callers were queued at this reading) and the last reading was
    /// taken while they queued too, less than <see cref="Contiguous"/> ago, the stretch between them counts as queued.
    /// </summary>
    public void Sample(bool queuing) => Add(_read(), queuing);

    internal void Add(Reading now, bool queuing)
    {
        lock (_sync)
        {
            Reading last = _last;
            _last = queuing ? now : default;
            if (last.At == 0 || !queuing || now.At <= last.At)
                return;
            double seconds = time.GetElapsedTime(last.At, now.At).TotalSeconds;
            if (seconds > Contiguous.TotalSeconds)
                return;
            _busyQueued += Busy(last, now) * seconds;
            _processQueued += Math.Max(0, (now.Process - last.Process).TotalSeconds);
            _secondsQueued += seconds;
        }
    }

    /// <summary>
    /// The share of the CPUs busy while callers queued (readings taken while they did, at least half a second of them);
    /// otherwise since this was made, up to <paramref name="now"/>. Null when nothing can be said (no time passed).
    /// </summary>
    public double? BusyShare(Reading now)
    {
        lock (_sync)
        {
            if (_secondsQueued >= 0.5)
                return _busyQueued / _secondsQueued;
            return now.At > _first.At ? Busy(_first, now) : null;
        }
    }

    /// <summary>
    /// This process's CPU time per second while callers queued (cores' worth), from the same readings as
    /// <see cref="BusyShare(Reading)"/> (since this was made, up to <paramref name="now"/>, before half a second of them);
    /// null when the readings carry no process time.
    /// </summary>
    public double? ProcessCoresQueued(Reading now)
    {
        lock (_sync)
        {
            if (_secondsQueued >= 0.5)
                return _processQueued > 0 ? _processQueued / _secondsQueued : null;
            double seconds = time.GetElapsedTime(_first.At, now.At).TotalSeconds;
            double process = (now.Process - _first.Process).TotalSeconds;
            return seconds > 0 && process > 0 ? process / seconds : null;
        }
    }

    /// <summary>The cores' worth <see cref="ProcessCoresQueued(Reading)"/> gives with a reading taken now.</summary>
    public double? ProcessCoresQueued() => ProcessCoresQueued(_read());

    /// <summary>The share <see cref="BusyShare(Reading)"/> gives with a reading taken now.</summary>
    public double? BusyShare() => BusyShare(_read());

    /// <summary>The larger of the process's share of its CPUs and the machine's busy share between two readings.</summary>
    internal double Busy(Reading from, Reading to)
    {
        double seconds = time.GetElapsedTime(from.At, to.At).TotalSeconds;
        double process = seconds <= 0 ? 0 : (to.Process - from.Process).TotalSeconds / seconds / Environment.ProcessorCount;
        long all = to.MachineAll - from.MachineAll;
        double machine = from.MachineAll == 0 || all <= 0 ? 0 : (double)(to.MachineBusy - from.MachineBusy) / all;
        return Math.Clamp(Math.Max(process, machine), 0, 1);
    }

    private static Func<Reading> Reader(TimeProvider time, Func<Reading>? read) =>
        read ?? (time == TimeProvider.System ? () => Read(time) : () => new Reading(time.GetTimestamp(), TimeSpan.Zero, 0, 0));

    private static Reading Read(TimeProvider time)
    {
        (long busy, long all) = Machine();
        return new Reading(time.GetTimestamp(), Environment.CpuUsage.TotalTime, busy, all);
    }

    /// <summary>The machine's busy and total CPU time from the first line of /proc/stat (jiffies), or zeros.</summary>
    private static (long Busy, long All) Machine()
    {
        if (!OperatingSystem.IsLinux())
            return (0, 0);
        try
        {
            using var reader = new StreamReader("/proc/stat");
            string? line = reader.ReadLine();
            if (line is null || !line.StartsWith("cpu ", StringComparison.Ordinal))
                return (0, 0);
            long all = 0, idle = 0;
            int field = 0;
            foreach (Range part in line.AsSpan(4).Split(' '))
            {
                ReadOnlySpan<char> text = line.AsSpan(4)[part];
                if (text.IsEmpty)
                    continue;
                if (field >= 8 || !long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out long value))
                    break;
                all += value; // user nice system idle iowait irq softirq steal; guest time is already in user
                if (field is 3 or 4)
                    idle += value;
                field++;
            }

            return field >= 5 ? (all - idle, all) : (0, 0);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return (0, 0);
        }
    }
}
