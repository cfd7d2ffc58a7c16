namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Which opens belong to a first wave of connects, which the slow-open detector never judges as a cold pool: the pool's
/// very first (the process's one-time costs, JIT and TLS set-up), and the first after connections failed. A server
/// restart or failover empties the pool, and then every caller reconnects at once to a server that has just started:
/// slow, once, for a reason that Min Pool Size and warmer connections would not change.
/// </summary>
internal sealed class ConnectWaves
{
    private long _firstConnectDone;

    /// <summary>An open that made a physical connection completed at <paramref name="now"/>; the first ends the wave.</summary>
    public void Connected(long now)
    {
        if (Volatile.Read(ref _firstConnectDone) == 0)
            Interlocked.CompareExchange(ref _firstConnectDone, now, 0);
    }

    /// <summary>An open failed to connect, or a command found its connection broken: a new first wave begins.</summary>
    public void ConnectionsLost() => Volatile.Write(ref _firstConnectDone, 0);

    /// <summary>Whether an open that began at <paramref name="started"/> began after the current wave's first connect completed.</summary>
    public bool After(long started) => Volatile.Read(ref _firstConnectDone) is var done && done != 0 && started > done;
}
