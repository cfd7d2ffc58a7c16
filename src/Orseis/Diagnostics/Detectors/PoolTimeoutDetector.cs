namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Pool timeouts as findings: every open that timed out (<see cref="FailedOpen.Exhausted"/>, explained by
/// <see cref="PoolExhaustion"/>: held connections, or connects that never completed) is reported with the caller's
/// message and its figures, never rate-limited.
/// </summary>
internal sealed class PoolTimeoutDetector(FindingLog log) : PoolObserver
{
    public override HeardFacts Hears => HeardFacts.OpenFailed;

    public override void OnOpenFailed(in FailedOpen open)
    {
        if (open.Exhausted is { } exhausted)
            Report(exhausted);
    }

    public void Report(PoolExhaustedException exhausted) =>
        log.Report(FindingKind.PoolTimeout, exhausted.Message, new Dictionary<string, double>
        {
            ["inUse"] = exhausted.InUse,
            ["parked"] = exhausted.Parked,
            ["waiting"] = exhausted.Waiting,
            ["connecting"] = exhausted.Connecting,
            ["maxPoolSize"] = exhausted.MaxPoolSize ?? -1,
            ["longestHeldMs"] = exhausted.LongestHeld?.TotalMilliseconds ?? -1,
        }, exhausted.LongestHolderLocation, rateLimited: false);
}
