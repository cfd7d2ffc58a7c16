namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// One logical flow's opens, for the churn detector: kept in an <see cref="AsyncLocal{T}"/> set by the public entry
/// points, so a loop of calls (sync or async) shares one. Tasks and threads forked from a flow share its state too;
/// their opens overlap, and an open begun while another of the flow is being opened or held never counts as "back to back".
/// </summary>
internal sealed class FlowState
{
    private int _active;

    /// <summary>Connections of this flow being opened or held right now.</summary>
    public int Active => Volatile.Read(ref _active);

    /// <summary>When this flow last gave a connection back (timestamp), or 0.</summary>
    public long LastRelease;

    /// <summary>Opens in the current back-to-back streak.</summary>
    public int Streak;

    /// <summary>When the streak began (timestamp of its first open).</summary>
    public long StreakStart;

    /// <summary>Opens in the streak that were warm (no queueing, no new physical connection), and their summed time.</summary>
    public int WarmOpens;

    public double WarmOpenMs;

    /// <summary>
    /// The last warm opens' times of a streak of at least two (allocated then, never for a flow that does not churn):
    /// the saving is priced on their median, as the first opens of a process also pay for compiling the code they run.
    /// </summary>
    public double[]? WarmOpenTimes;

    /// <summary>Where the streak's calls come from, read when it reached the threshold.</summary>
    public string? Site;

    /// <summary>The facts session (<see cref="OrseisEventSource.FactsGeneration"/>) that last recorded <see cref="Site"/>.</summary>
    public int SiteSession;

    /// <summary>The streak was reported.</summary>
    public bool Reported;

    /// <summary>Its statements, for the repeated-statement detector, made on the first one while it is on.</summary>
    public StatementRepeats? Repeats;

    /// <summary>This flow's number in the detectors' facts (<see cref="FactRecorder"/>), 0 until it is recorded once.</summary>
    public long FactId;

    /// <summary>An open of this flow began; returns whether another was already being opened or held.</summary>
    public bool Began() => Interlocked.Increment(ref _active) > 1;

    /// <summary>An open of this flow failed: nothing is held.</summary>
    public void Failed() => Interlocked.Decrement(ref _active);

    public void Released(long now)
    {
        Interlocked.Decrement(ref _active);
        Volatile.Write(ref LastRelease, now);
    }
}
