namespace Orseis.Diagnostics;

/// <summary>The pool report: what the recorder counted and what the observers measured, at one moment.</summary>
internal sealed partial class PoolTelemetry
{
    /// <summary>Everything this recorder knows, at this moment; each observer describes what it measured (and may report).</summary>
    public PoolReport CreateReport(ExecutionMode mode)
    {
        var figures = new ReportFigures { Opens = Opens };
        foreach (PoolObserver observer in _observers.All)
            observer.Describe(figures);
        ProviderPool?.Refresh();
        TimeSpan elapsed = _time.GetElapsedTime(_created);
        (TimeSpan? longest, string? where) = _holders.Longest();
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
            QueuedOpens = figures.QueuedOpens,
            MaxPoolSize = MaxPoolSize,
            Opens = Opens,
            Commands = Commands,
            Timeouts = Interlocked.Read(ref _timeouts),
            ReuseWaits = Interlocked.Read(ref _reuseWaits),
            ActiveSessions = (int)ActiveSessions,
            ScopeReuses = ScopeReuses,
            ParkedConnections = (int)ParkedNow,
            ParkedTime = ParkedTime,
            OpensPerSecond = elapsed.TotalSeconds > 0 ? Opens / elapsed.TotalSeconds : null,
            UsualOpenTime = figures.UsualOpenTime,
            MedianHoldTime = figures.MedianHoldTime,
            MeanInUse = figures.MeanInUse,
            RecommendedMaxPoolSize = figures.RecommendedMaxPoolSize,
            PoolSizeAdvice = figures.PoolSizeAdvice,
            LongestHeld = longest,
            LongestHolderLocation = where,
            ProviderIdle = ProviderPool?.Idle,
            ProviderUsed = ProviderPool?.Used,
            ProviderPhysicalConnects = ProviderPool?.PhysicalConnects,
            ProviderVisibility = ProviderVisibility,
            FindingCounts = _log.Counts(),
            Findings = _log.Kept,
        };
    }
}
