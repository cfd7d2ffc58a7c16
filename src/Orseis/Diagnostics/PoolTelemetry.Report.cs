using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics;

/// <summary>The pool report: what the recorder counted and what the detectors measured, at one moment.</summary>
internal sealed partial class PoolTelemetry
{
    /// <summary>Everything this recorder knows, at this moment; runs the pool-size and held-too-long detectors.</summary>
    public PoolReport CreateReport(ExecutionMode mode)
    {
        if (Detecting(FindingKind.HeldTooLong))
            _heldTooLong.MaybeScan(force: true);
        ProviderPool?.Refresh();
        TimeSpan elapsed = _time.GetElapsedTime(_created);
        long samples = Interlocked.Read(ref _demandSamples);
        double meanDemand = samples == 0 ? 0 : (double)Interlocked.Read(ref _demandSum) / samples;
        PoolSizeAdvisor.Advice? advice = _poolSize.Advise(
            _holdTimes, meanDemand, _saturation.QueuedOpens, Opens, Detecting(FindingKind.PoolSize), _starvation?.LastStarved ?? 0);
        (TimeSpan? longest, string? where) = _holders.Longest();
        double usual = _slowOpen.UsualMs;
        return new PoolReport
        {
            PoolName = PoolName,
            SystemName = SystemName,
            Mode = mode,
            Elapsed = elapsed,
            Detectors = _detectors,
            InUse = (int)InUse,
            Pending = (int)Pending,
            PeakInUse = (int)Interlocked.Read(ref _peakInUse),
            PeakPending = (int)Interlocked.Read(ref _peakPending),
            PeakDemand = (int)Interlocked.Read(ref _peakDemand),
            QueuedOpens = _saturation.QueuedOpens,
            MaxPoolSize = MaxPoolSize,
            Opens = Opens,
            Commands = Commands,
            Timeouts = Interlocked.Read(ref _timeouts),
            ReuseWaits = Interlocked.Read(ref _reuseWaits),
            ActiveSessions = (int)ActiveSessions,
            OpensPerSecond = elapsed.TotalSeconds > 0 ? Opens / elapsed.TotalSeconds : null,
            UsualOpenTime = usual > 0 ? TimeSpan.FromMilliseconds(usual) : null,
            MedianHoldTime = _holdTimes.Percentile(0.5),
            MeanInUse = advice?.Busy,
            RecommendedMaxPoolSize = advice?.Recommended,
            PoolSizeAdvice = advice is null ? null : AdviceLine(advice),
            LongestHeld = longest,
            LongestHolderLocation = where,
            ProviderIdle = ProviderPool?.Idle,
            ProviderUsed = ProviderPool?.Used,
            ProviderPhysicalConnects = ProviderPool?.PhysicalConnects,
            ProviderVisibility = ProviderPoolStats.Visibility(SystemName),
            FindingCounts = _log.Counts(),
            Findings = _log.Kept,
        };
    }

    private string AdviceLine(PoolSizeAdvisor.Advice a)
    {
        var c = System.Globalization.CultureInfo.InvariantCulture;
        string measured = string.Create(c, $"{a.PerSecond:0.##} releases/s x {a.Hold.TotalMilliseconds:0.###} ms uncontended hold = {a.Busy:0.##} busy");
        if (a.Starved)
        {
            return measured + "; no advice: the thread pool starved while this load ran, so its throughput measured the threads, " +
                   "not what the load needs (see the ThreadPoolStarvation finding)";
        }

        string law = string.Create(c, $"{measured} -> {a.Recommended}");
        if (a.Raise)
            return law + string.Create(c, $"; {a.QueuedOpens} open(s) queued: raise Max Pool Size from {MaxPoolSize} to {a.Recommended}");
        if (a.Lower)
            return law + string.Create(c, $"; Max Pool Size {MaxPoolSize} is more than this load uses: {a.Recommended} would do (a smaller cap protects the server when load spikes)");
        return law;
    }
}
