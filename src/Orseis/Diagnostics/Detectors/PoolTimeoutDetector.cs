using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Pool timeouts as findings: every open that timed out (<see cref="FailedOpen.Exhausted"/>, explained by
/// <see cref="PoolExhaustion"/>: held connections, or connects that never completed) is reported with the caller's
/// message and its figures, never rate-limited; except that a connect that timed out while the server completed other
/// connects during its wait (<see cref="FailedOpen.Lost"/>) is reported as what it is: a connect lost on the way, most
/// likely at the server's listen queue, with its cure; once per
/// <see cref="DiagnosticsOptions.FindingInterval"/>, as the connects a burst loses together time out together (a burst of
/// 300 on a server queueing 16 lost 246 at once, which reported one by one pushed every other finding out of the pool's
/// kept findings).
/// </summary>
internal sealed class PoolTimeoutDetector(FindingLog log) : PoolObserver
{
    public override HeardFacts Hears => HeardFacts.OpenFailed;

    public override void OnOpenFailed(in FailedOpen open)
    {
        if (open.Exhausted is not { } exhausted)
            return;
        if (open.Lost.IsLost)
            ReportLost(exhausted, open.Start.Started, open.Lost);
        else
            Report(exhausted);
    }

    /// <summary>
    /// A connect begun at <paramref name="started"/> timed out while others completed (<paramref name="lost"/>).
    /// </summary>
    public void ReportLost(PoolExhaustedException exhausted, long started, LostConnect lost)
    {
        CultureInfo c = CultureInfo.InvariantCulture;
        double waitedS = log.Time.GetElapsedTime(started).TotalSeconds;
        double withinS = lost.LatestAfter.TotalSeconds;
        string message =
            string.Create(c, $"Pool '{log.PoolName}' lost a new connection: its connect timed out after {waitedS:0.0} s ") +
            string.Create(c, $"while {lost.Answered} ") +
            string.Create(c, $"other connect(s) to the same server completed during its wait, the latest {withinS:0.0} s after it began ") +
            string.Create(c, $"({exhausted.Waiting} caller(s) were inside Open, {exhausted.InUse} held a connection). ") +
            PoolExhaustion.BurstCure + " The server is up: it answered the others, so this connect " +
            "was most likely lost at its listen queue, more connects arriving at once than it queues, and the client waited for " +
            "an answer until its Connect Timeout. Connects lost with it that time out now are not reported again.";
        log.Report(FindingKind.PoolTimeout, message, new Dictionary<string, double>
        {
            ["inUse"] = exhausted.InUse,
            ["waiting"] = exhausted.Waiting,
            ["maxPoolSize"] = exhausted.MaxPoolSize ?? -1,
            ["waitedMs"] = waitedS * 1000,
            ["answeredDuring"] = lost.Answered,
            ["latestAnsweredMs"] = withinS * 1000,
            ["lostConnect"] = 1,
        }, null, rateLimited: true);
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
