namespace Orseis.Diagnostics;

/// <summary>
/// What a <see cref="PoolReport"/> takes from the pool's observers, filled as the report is made: the telemetry sets
/// <see cref="Opens"/>, then each observer writes what it measured (<see cref="PoolObserver.Describe"/>) in the order
/// registered, so the pool-size advice, registered last, reads what the others wrote. What nobody writes stays empty.
/// </summary>
internal sealed class ReportFigures
{
    /// <summary>Connection opens so far (the telemetry's count).</summary>
    public long Opens { get; init; }

    /// <summary>Opens that queued for the pool and waited (the saturation detector's count).</summary>
    public long QueuedOpens { get; set; }

    /// <summary>When the thread pool was last seen starving (a timestamp of the pool's clock), or 0.</summary>
    public long LastStarved { get; set; }

    /// <summary>The usual (warm) open time, when one was learned.</summary>
    public TimeSpan? UsualOpenTime { get; set; }

    /// <summary>The median hold time, when a hold was timed.</summary>
    public TimeSpan? MedianHoldTime { get; set; }

    /// <summary>Connections the measured load keeps busy (Little's law), when advised.</summary>
    public double? MeanInUse { get; set; }

    /// <summary>The advised Max Pool Size, when advised.</summary>
    public int? RecommendedMaxPoolSize { get; set; }

    /// <summary>The advice as one line of the report, when advised.</summary>
    public string? PoolSizeAdvice { get; set; }
}
