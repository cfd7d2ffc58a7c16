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
    private long _began;
    private int _lost;

    /// <summary>
    /// Whether an open entering at <paramref name="now"/> belongs to the current first wave: no connect of the wave has
    /// completed yet, and the wave began (its first open) less than <paramref name="within"/> ago, so a warm pool that
    /// lost a connection and never connects again stops counting opens as a wave's.
    /// </summary>
    public bool InFirstWave(long now, TimeProvider time, TimeSpan within)
    {
        if (After(now))
            return false;
        long began = Volatile.Read(ref _began);
        if (began == 0)
            began = Interlocked.CompareExchange(ref _began, now, 0) is var was && was != 0 ? was : now;
        return time.GetElapsedTime(began, now) < within;
    }

    /// <summary>Whether the current wave began because connections were lost (not the pool's very first).</summary>
    public bool AfterLoss => Volatile.Read(ref _lost) != 0;

    /// <summary>An open that made a physical connection completed at <paramref name="now"/>; the first ends the wave.</summary>
    public void Connected(long now)
    {
        if (Volatile.Read(ref _firstConnectDone) == 0)
            Interlocked.CompareExchange(ref _firstConnectDone, now, 0);
    }

    /// <summary>An open failed to connect, or a command found its connection broken: a new first wave begins.</summary>
    public void ConnectionsLost()
    {
        Volatile.Write(ref _lost, 1);
        Volatile.Write(ref _began, 0);
        Volatile.Write(ref _firstConnectDone, 0);
    }

    /// <summary>Whether an open that began at <paramref name="started"/> began after the current wave's first connect completed.</summary>
    public bool After(long started) => Volatile.Read(ref _firstConnectDone) is var done && done != 0 && started > done;
}
