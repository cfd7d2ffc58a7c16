namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// An outage as the pool meets it: opens that failed to connect (refused, timed out, the connection broken while it was
/// opened), not waits for a full pool. The first failure of an episode is reported with the provider's error (its type
/// and message: a host, a port, a reason, never a row); the episode ends at the next open that succeeds with a new
/// connection made meanwhile (<paramref name="connects"/>: where the provider's connects are not seen, at the next open
/// that succeeds). An open handed a pooled connection proves nothing about new ones: MySqlConnector hands out an idle
/// connection without a round trip, so while the server was stopped such opens succeeded between failed connects, and
/// each failed connect after one began an episode of its own (two findings 8 ms apart in one outage). MySqlConnector
/// fails such opens at once, so without this an outage shows only as exceptions. A connect that <b>timed out</b> while
/// other opens' connects to the same server completed (<see cref="ConnectsAnswered"/>) is no outage: the server answered
/// them meanwhile, and this one was lost on the way (a burst of connects at once overflowing the server's listen queue);
/// it opens no episode, and the pool-timeout finding of the same open says so.
/// </summary>
internal sealed class ServerUnavailableDetector(FindingLog log, ConnectCount connects = ConnectCount.None) : PoolObserver
{
    private long _since; // when the episode began (a timestamp), 0 when the server answers

    /// <summary>Whether an episode is open: read on every successful open, so the common case costs one read.</summary>
    public bool InEpisode => Volatile.Read(ref _since) != 0;

    public override HeardFacts Hears => HeardFacts.OpenCompleted | HeardFacts.OpenFailed;

    public override void OnOpenCompleted(in CompletedOpen open)
    {
        // Outside an episode (the common case) this is one read.
        if (Volatile.Read(ref _since) != 0 && (connects == ConnectCount.None || open.Outcome.PhysicalConnectsDuring > 0))
            Volatile.Write(ref _since, 0);
    }

    /// <summary>
    /// A pooled connection found dead is replaced once, not an outage; a wait for the pool is none either, nor a connect
    /// that timed out while the server completed others (<see cref="ConnectsAnswered.Lost"/>).
    /// </summary>
    public override void OnOpenFailed(in FailedOpen open)
    {
        if (open.Failure.ServerUnanswered && !open.Lost.IsLost)
            OnConnectFailed(open.Failure.Error);
    }

    public void OnConnectFailed(Exception error)
    {
        long now = log.Time.GetTimestamp();
        if (Interlocked.CompareExchange(ref _since, now, 0) != 0)
            return;
        Exception cause = error.InnerException is { } inner && error is OperationCanceledException ? inner : error;
        log.Report(FindingKind.ServerUnavailable,
            $"Pool '{log.PoolName}' cannot connect: the server refused or did not answer a new connection " +
            $"({TypeName(cause)}: {cause.Message}). Every call that needs a new connection fails until it answers; " +
            "this is reported once, and the next new connection ends the episode. Check that the server runs and is " +
            "reachable from here (address, port, firewall, its max_connections).",
            [],
            null, rateLimited: false);
    }

    /// <summary>The failure's type; for a replayed one (<see cref="Replay.RecordedError"/>), the type the process saw.</summary>
    private static string? TypeName(Exception cause) =>
        cause is Replay.RecordedError { TypeName.Length: > 0 } recorded ? recorded.TypeName : cause.GetType().FullName;

    /// <summary>A connect succeeded: an open episode is over (silently: it was reported once, as it began).</summary>
    public void OnOpened()
    {
        if (Volatile.Read(ref _since) != 0)
            Volatile.Write(ref _since, 0);
    }
}
