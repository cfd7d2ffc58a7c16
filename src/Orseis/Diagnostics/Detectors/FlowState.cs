namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// One logical flow's opens, for the churn detector: kept in an <see cref="AsyncLocal{T}"/> set by the public entry
/// points, so a loop of calls (sync or async) shares one. Tasks forked from a flow share its state too; their opens
/// overlap, and an open made while another of the flow is held never counts as "back to back".
/// </summary>
internal sealed class FlowState
{
    private int _held;

    /// <summary>Connections of this flow held right now.</summary>
    public int Held => Volatile.Read(ref _held);

    /// <summary>When this flow last gave a connection back (timestamp), or 0.</summary>
    public long LastRelease;

    /// <summary>Opens in the current back-to-back streak.</summary>
    public int Streak;

    /// <summary>When the streak began (timestamp of its first open).</summary>
    public long StreakStart;

    /// <summary>Opens in the streak that were warm (no queueing, no new physical connection), and their summed time.</summary>
    public int WarmOpens;

    public double WarmOpenMs;

    /// <summary>Where the streak's calls come from, read when it reached the threshold.</summary>
    public string? Site;

    /// <summary>The streak was reported.</summary>
    public bool Reported;

    public void Acquired() => Interlocked.Increment(ref _held);

    public void Released(long now)
    {
        Interlocked.Decrement(ref _held);
        Volatile.Write(ref LastRelease, now);
    }
}
