namespace Orseis.Diagnostics.Replay;

/// <summary>
/// Runs the library's own detectors over a recording of their facts (<see cref="FactRecorder"/>'s events): one
/// <see cref="PoolReplay"/> per pool of the process, made from its <c>FactPool</c> event. Facts of a pool whose
/// description was not recorded are counted in <see cref="Orphans"/> and not replayed.
/// </summary>
internal sealed class FactReplay
{
    private readonly Dictionary<(string Pool, int Instance), PoolReplay> _pools = [];

    /// <summary>Facts seen before their pool's description (a session that began mid-run would miss none: see the recorder).</summary>
    public long Orphans { get; private set; }

    /// <summary>How many fact events were seen.</summary>
    public long Facts { get; private set; }

    /// <summary>Replays <paramref name="fact"/> if it is one of the detectors' facts; returns whether it was.</summary>
    public bool Add(in RecordedFact fact)
    {
        if (!RecordedFact.IsFact(fact.EventId))
            return false;
        Facts++;
        var key = (fact.Text("pool"), fact.Int("instance"));
        if (fact.EventId == RecordedFact.FirstId)
        {
            if (!_pools.ContainsKey(key))
                _pools[key] = new PoolReplay(fact);
            return true;
        }

        if (_pools.TryGetValue(key, out PoolReplay? pool))
            pool.Replay(fact);
        else
            Orphans++;
        return true;
    }

    /// <summary>What each pool's replay found, by pool name then instance.</summary>
    public IReadOnlyList<ReplayedPool> Finish() =>
        [.. _pools.Values.OrderBy(p => p.Pool, StringComparer.Ordinal).ThenBy(p => p.Instance).Select(p => p.Finish())];
}
