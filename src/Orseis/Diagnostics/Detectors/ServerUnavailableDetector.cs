using System.Runtime.CompilerServices;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// An outage as the pool meets it: opens that failed to connect (refused, timed out, the connection broken while it was
/// opened), not waits for a full pool. The first failure of an episode is reported with the provider's error (its type
/// and message: a host, a port, a reason, never a row); the episode ends at the next open that succeeds. MySqlConnector
/// fails such opens at once, so without this an outage shows only as exceptions. A connect that <b>timed out</b> while
/// other opens' connects to the same server completed (<see cref="ConnectsAnswered"/>) is no outage: the server answered
/// them meanwhile, and this one was lost on the way (a burst of connects at once overflowing the server's listen queue);
/// it opens no episode, and the pool-timeout finding of the same open says so.
/// </summary>
internal sealed class ServerUnavailableDetector(FindingLog log) : PoolObserver
{
    private readonly ConnectsAnswered _answered = ConnectsAnswered.Of(log);
    private long _since; // when the episode began (a timestamp), 0 when the server answers

    /// <summary>Whether an episode is open: read on every successful open, so the common case costs one read.</summary>
    public bool InEpisode => Volatile.Read(ref _since) != 0;

    public override HeardFacts Hears => HeardFacts.OpenCompleted | HeardFacts.OpenFailed;

    public override void OnOpenCompleted(in CompletedOpen open)
    {
        if (open.Outcome.PhysicalConnectsDuring > 0)
            _answered.Completed(open.At); // an open that connected: never a warm call
        OnOpened();
    }

    /// <summary>
    /// A pooled connection found dead is replaced once, not an outage; a wait for the pool is none either, nor a connect
    /// that timed out while the server completed others (<see cref="ConnectsAnswered.Lost"/>).
    /// </summary>
    public override void OnOpenFailed(in FailedOpen open)
    {
        if (open.Failure.ServerUnanswered && !_answered.Lost(open.Start, open.Failure).IsLost)
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
            "this is reported once, and the next open that succeeds ends the episode. Check that the server runs and is " +
            "reachable from here (address, port, firewall, its max_connections).",
            [],
            null, rateLimited: false);
    }

    /// <summary>The failure's type; for a replayed one (<see cref="Replay.RecordedError"/>), the type the process saw.</summary>
    private static string? TypeName(Exception cause) =>
        cause is Replay.RecordedError { TypeName.Length: > 0 } recorded ? recorded.TypeName : cause.GetType().FullName;

    /// <summary>An open succeeded: an open episode is over (silently: it was reported once, as it began).</summary>
    public void OnOpened()
    {
        if (Volatile.Read(ref _since) != 0)
            Volatile.Write(ref _since, 0);
    }
}

/// <summary>
/// When the pool's recent connects completed (the last <see cref="Kept"/>), to tell a connect lost on the way from a
/// server that answers none: a connect that timed out while others to the same server completed during its wait was
/// lost (its SYN or its handshake dropped at a full listen queue: a MySQL or MariaDB client, whose server speaks first,
/// then waits for a greeting that never comes until its Connect Timeout), where a server down, paused or unreachable
/// completes none. One per pool (<see cref="Of"/>), fed by the server-unavailable detector, read by it and by the
/// pool-timeout detector; touched only by opens that connected or failed, never by a warm call.
/// </summary>
internal sealed class ConnectsAnswered
{
    private const int Kept = 1024;
    private static readonly ConditionalWeakTable<FindingLog, ConnectsAnswered> ByLog = new();
    private readonly Lock _lock = new();
    private readonly long[] _done = new long[Kept];
    private long _count;

    /// <summary>The pool's (made at its first use).</summary>
    public static ConnectsAnswered Of(FindingLog log) => ByLog.GetValue(log, static _ => new ConnectsAnswered());

    /// <summary>The pool's, if the server-unavailable detector keeps one; null otherwise.</summary>
    public static ConnectsAnswered? Find(FindingLog log) => ByLog.TryGetValue(log, out ConnectsAnswered? answered) ? answered : null;

    /// <summary>An open that made a physical connection completed at <paramref name="at"/>.</summary>
    public void Completed(long at)
    {
        lock (_lock)
            _done[_count++ % Kept] = at;
    }

    /// <summary>
    /// Whether an open that began with <paramref name="start"/> and failed with <paramref name="failure"/> lost its connect
    /// while the server answered others: it timed out connecting (not refused, not a pooled connection found dead) and
    /// connects completed after it began; with how many (of the last <see cref="Kept"/>) and when the latest did.
    /// </summary>
    public (bool IsLost, int Answered, long Latest) Lost(in OpenStart start, in OpenFailure failure)
    {
        if (failure.Timeout != OpenTimeout.Connect || !failure.ServerUnanswered || start.Started == 0)
            return (false, 0, 0);
        int answered = 0;
        long latest = 0;
        lock (_lock)
        {
            long kept = Math.Min(_count, Kept);
            for (long i = 0; i < kept; i++)
            {
                long at = _done[i];
                if (at > start.Started)
                {
                    answered++;
                    latest = Math.Max(latest, at);
                }
            }
        }

        return (answered > 0, answered, latest);
    }
}
