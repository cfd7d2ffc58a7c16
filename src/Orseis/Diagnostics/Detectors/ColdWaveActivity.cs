using System.Diagnostics;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// What the process did while a first wave's opens were in flight: the CPU time it used (all its threads), and how long
/// it sat idle (in all, and the longest stretch): using less than <see cref="IdleCores"/> of a core, and not kept from
/// running by the machine (work waiting in the thread pool's queues while the sampling thread itself ran late). A slow
/// server's connects leave the process waiting with nothing to run (every caller blocked on, or awaiting, the server's
/// answer); a fresh process's own start-up keeps it running (its JIT, its first unoptimised code, the thread pool's few
/// threads running every connect's continuations), or wanting to run beside other processes, so it is never idle for
/// long. The figures are NaN where nothing was sampled (a test's or a replay's clock).
/// </summary>
internal readonly record struct WaveActivity(double CpuMs, double IdleMs, double LongestIdleMs)
{
    /// <summary>A process this idle or less is waiting on something outside it: a quarter of a core.</summary>
    public const double IdleCores = 0.25;

    public static WaveActivity Unknown => new(double.NaN, double.NaN, double.NaN);
}

/// <summary>
/// Samples the process's CPU time (<see cref="Environment.CpuUsage"/>) every <see cref="Every"/> on a thread of its own
/// from a first wave's first open to its last (<see cref="ColdStarts"/>): a fresh process's first wave and a reconnect
/// wave, never a warm pool's calls. Between two samples the process was idle when it used less than
/// <see cref="WaveActivity.IdleCores"/> of a core, unless work waited in the thread pool's queues and the sample came more
/// than twice <see cref="Every"/> late: then the machine, busy with other processes, kept it from running.
/// </summary>
internal sealed class ColdWaveActivity
{
    /// <summary>How often the process is read while a wave is followed.</summary>
    public static readonly TimeSpan Every = TimeSpan.FromMilliseconds(5);

    private readonly Lock _lock = new();
    private readonly long _began = Stopwatch.GetTimestamp();
    private readonly TimeSpan _cpuAtStart = Environment.CpuUsage.TotalTime;
    private long _last;
    private TimeSpan _lastCpu;
    private double _idleMs;
    private double _runMs;
    private double _longestMs;
    private bool _stopped;

    private ColdWaveActivity()
    {
    }

    /// <summary>Starts sampling now, on a background thread of its own.</summary>
    public static ColdWaveActivity Start()
    {
        var activity = new ColdWaveActivity();
        var thread = new Thread(activity.Run) { IsBackground = true, Name = "Orseis cold-start sampler" };
        thread.UnsafeStart();
        return activity;
    }

    /// <summary>Stops sampling and returns what was seen from the start (the CPU time read now).</summary>
    public WaveActivity Stop()
    {
        lock (_lock)
        {
            if (!_stopped)
            {
                _lastCpu = Environment.CpuUsage.TotalTime;
                _stopped = true;
            }

            return new WaveActivity((_lastCpu - _cpuAtStart).TotalMilliseconds, _idleMs, _longestMs);
        }
    }

    private void Run()
    {
        lock (_lock)
        {
            if (_stopped)
                return;
            _last = Stopwatch.GetTimestamp();
            _lastCpu = Environment.CpuUsage.TotalTime;
        }

        while (true)
        {
            Thread.Sleep(Every);
            lock (_lock)
            {
                if (_stopped)
                    return;
                Sample();
                if (Stopwatch.GetElapsedTime(_began).TotalMinutes >= 1)
                {
                    _stopped = true; // a wave is followed 30 s at most (PoolTelemetry's FirstWaveLimit): never sample forever
                    return;
                }
            }
        }
    }

    /// <summary>Reads the clock and the CPU time, and counts the stretch since the last reading; under the lock.</summary>
    private void Sample()
    {
        long now = Stopwatch.GetTimestamp();
        TimeSpan cpu = Environment.CpuUsage.TotalTime;
        double wallMs = Stopwatch.GetElapsedTime(_last, now).TotalMilliseconds;
        double cpuMs = (cpu - _lastCpu).TotalMilliseconds;
        bool starved = wallMs > 2 * Every.TotalMilliseconds && ThreadPool.PendingWorkItemCount > 0;
        if (wallMs > 0 && cpuMs < WaveActivity.IdleCores * wallMs && !starved)
        {
            _idleMs += wallMs;
            _runMs += wallMs;
            _longestMs = Math.Max(_longestMs, _runMs);
        }
        else
        {
            _runMs = 0;
        }

        _last = now;
        _lastCpu = cpu;
    }
}
