using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Saturation: callers that really queued for a connection. A caller queues when, as it enters Open, the connections
/// held plus the callers inside Open (itself included) exceed Max Pool Size; it is reported once its open completes and
/// only if it waited at least <see cref="DiagnosticsOptions.QueueWaitFloor"/>. Judged per caller, so a burst of callers
/// arriving together at an empty pool is seen too. Queued opens are counted for the report and the pool-size advice
/// whatever detector is on; findings are reported only when <paramref name="report"/> (the Saturation detector is on).
/// </summary>
internal sealed class SaturationDetector(FindingLog log, int? maxPoolSize, bool report = true) : PoolObserver
{
    private long _queuedOpens;
    private readonly Lock _lock = new();
    private double _queuedWaitMs;

    /// <summary>Opens that queued for the pool and waited at least the floor.</summary>
    public long QueuedOpens => Interlocked.Read(ref _queuedOpens);

    public double QueuedWaitMs
    {
        get
        {
            lock (_lock)
                return _queuedWaitMs;
        }
    }

    public override HeardFacts Hears => HeardFacts.OpenCompleted;

    public override void OnOpenCompleted(in CompletedOpen open)
    {
        // Most opens did not queue: judged from the fact in place, without copying its parts.
        if (open.Outcome.Queued)
            OnOpenCompleted(open.Start, open.Outcome);
    }

    public override void Describe(ReportFigures figures) => figures.QueuedOpens = QueuedOpens;

    public void OnOpenCompleted(in OpenStart start, in OpenOutcome outcome)
    {
        if (!outcome.Queued || maxPoolSize is not { } max || outcome.Elapsed < log.Options.QueueWaitFloor)
            return;
        Interlocked.Increment(ref _queuedOpens);
        lock (_lock)
            _queuedWaitMs += outcome.Elapsed.TotalMilliseconds;
        if (!report)
            return;
        CultureInfo c = CultureInfo.InvariantCulture;
        int queued = start.Demand - max;
        log.Report(FindingKind.Saturation,
            string.Create(c, $"Callers queue for connections of pool '{log.PoolName}': {start.Demand} caller(s) wanted a connection at once ") +
            string.Create(c, $"({start.InUse} held, the rest inside Open) against Max Pool Size {max}, so {queued} had to wait; this one waited {outcome.Elapsed.TotalMilliseconds:0.###} ms. ") +
            "This is queueing for the pool, not a slow server: see the pool-size advice in the report, hold connections for less time, or lower concurrency.",
            new Dictionary<string, double>
            {
                ["demand"] = start.Demand,
                ["inUse"] = start.InUse,
                ["queued"] = queued,
                ["waitMs"] = outcome.Elapsed.TotalMilliseconds,
                ["maxPoolSize"] = max,
            },
            null, rateLimited: true);
    }
}
