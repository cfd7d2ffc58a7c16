namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// When the pool's recent connects completed (the last <see cref="Kept"/>), to tell a connect lost on the way from a
/// server that answers none: a connect that timed out while others to the same server completed during its wait was
/// lost (its SYN or its handshake dropped at a full listen queue: a MySQL or MariaDB client, whose server speaks first,
/// then waits for a greeting that never comes until its Connect Timeout), where a server down, paused or unreachable
/// completes none. One per pool, fed by its telemetry (or a replay of it) with every open that connected, and asked once
/// per failed open (<see cref="FailedOpen.Lost"/>: what the caller is told, <see cref="PoolExhaustion"/>, and what the
/// server-unavailable and pool-timeout detectors hear); touched only by opens that connected or failed, never by a warm call.
/// </summary>
internal sealed class ConnectsAnswered
{
    private const int Kept = 1024;
    private readonly Lock _lock = new();
    private readonly long[] _done = new long[Kept];
    private long _count;

    /// <summary>An open that made a physical connection completed at <paramref name="at"/>.</summary>
    public void Completed(long at)
    {
        lock (_lock)
            _done[_count++ % Kept] = at;
    }

    /// <summary>
    /// Whether an open that began with <paramref name="start"/> and failed with <paramref name="failure"/> lost its connect
    /// while the server answered others: it timed out connecting (not refused, not a pooled connection found dead) and
    /// connects completed after it began; with how many (of the last <see cref="Kept"/>) and how long after it began the
    /// latest did, on <paramref name="time"/>, the pool's clock.
    /// </summary>
    public LostConnect Lost(in OpenStart start, in OpenFailure failure, TimeProvider time)
    {
        if (failure.Timeout != OpenTimeout.Connect || !failure.ServerUnanswered || start.Started == 0)
            return default;
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

        return answered > 0 ? new LostConnect(answered, time.GetElapsedTime(start.Started, latest)) : default;
    }
}
