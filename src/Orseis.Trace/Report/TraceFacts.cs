using System.Globalization;
using Orseis.Diagnostics.Replay;
using Orseis.Trace.Monitor;

namespace Orseis.Trace.Report;

/// <summary>Gathers, in a trace's order, what the report needs: per pool events, meter values and findings.</summary>
internal sealed class TraceFacts
{
    private readonly Dictionary<string, PoolFacts> _pools = new(StringComparer.Ordinal);
    private readonly Dictionary<(string Meter, string Instrument, string Tags), double> _providerPeaks = [];
    private readonly List<ThreadPoolAdjustment> _adjustments = [];
    private readonly FactReplay _replay = new();
    private double? _peakQueue;
    private DateTime? _start, _end;
    private bool _verbose;

    public void Subscribe(OrseisEventDecoder decoder)
    {
        decoder.Metric += Add;
        decoder.Finding += f =>
        {
            // A trace of findings alone (dotnet-trace at Warning level) still spans from its first to its last.
            Seen(f.Time);
            Pool(f.Pool).Findings.Add(f);
        };
        decoder.PoolEvent += Add;
        decoder.Fact += f =>
        {
            Seen(f.Time);
            _replay.Add(f);
        };
        decoder.ThreadPool += a =>
        {
            _adjustments.Add(a);
            Seen(a.Time);
        };
    }

    /// <summary>The pools' facts by name.</summary>
    public IReadOnlyDictionary<string, PoolFacts> Pools => _pools;

    public TraceReport Build(string trace)
    {
        double seconds = _start is { } s && _end is { } e ? Math.Round((e - s).TotalSeconds, 3) : 0;
        // The detectors run again over each pool's recorded facts, as the process ran them.
        var replayed = _replay.Finish().GroupBy(p => p.Pool, StringComparer.Ordinal)
            .ToDictionary(g => g.Key, g => ReplayReport.Of([.. g]), StringComparer.Ordinal);
        foreach (string pool in replayed.Keys)
            Pool(pool);
        var pools = _pools.Values.OrderBy(p => p.Name, StringComparer.Ordinal)
            .Select(p => p.Build(seconds, replayed.GetValueOrDefault(p.Name))).ToList();
        ThreadPoolReport threadPool = new(_adjustments.Count, _adjustments.Count(a => a.Reason == "Starvation"),
            _adjustments.Count == 0 ? null : _adjustments.Max(a => a.Threads), _peakQueue);
        var provider = _providerPeaks.OrderBy(p => p.Key.Meter, StringComparer.Ordinal)
            .ThenBy(p => p.Key.Instrument, StringComparer.Ordinal).ThenBy(p => p.Key.Tags, StringComparer.Ordinal)
            .Select(p => new ProviderMeterReport(p.Key.Meter, p.Key.Instrument, p.Key.Tags, p.Value))
            .ToList();
        return new TraceReport(
            trace, _start?.ToUniversalTime(), _end?.ToUniversalTime(), seconds, _replay.Facts > 0, pools, threadPool, provider, _verbose);
    }

    private void Add(MetricValue m)
    {
        Seen(m.Time);
        if (double.IsNaN(m.Value))
            return;
        switch (m.Meter)
        {
            case "Orseis":
                Pool(MonitorState.Tag(m.Tags, "db.client.connection.pool.name") ?? "(unnamed)").Add(m);
                break;
            case "System.Runtime":
                if (m.Instrument == "dotnet.thread_pool.queue.length")
                    _peakQueue = Math.Max(_peakQueue ?? 0, m.Value);
                break;
            default:
                if (m.Kind == "Value")
                {
                    _providerPeaks[(m.Meter, m.Instrument, m.Tags)] =
                        Math.Max(_providerPeaks.GetValueOrDefault((m.Meter, m.Instrument, m.Tags)), m.Value);
                }

                break;
        }
    }

    private void Add(PoolEvent e)
    {
        Seen(e.Time);
        _verbose |= e.Name == "Released"; // the one Orseis event at Verbose level besides the facts
        Pool(e.Pool).Add(e);
    }

    private void Seen(DateTime time)
    {
        if (time == default)
            return;
        time = time.ToUniversalTime(); // facts are read as UTC, the other events in local time: one scale for the span
        if (_start is null || time < _start)
            _start = time;
        if (_end is null || time > _end)
            _end = time;
    }

    private PoolFacts Pool(string name)
    {
        if (!_pools.TryGetValue(name, out PoolFacts? pool))
            _pools[name] = pool = new PoolFacts(name);
        return pool;
    }

    internal static Percentiles? PercentilesOf(List<double> values)
    {
        if (values.Count == 0)
            return null;
        List<double> sorted = [.. values.Order()];
        double At(double q) => Math.Round(sorted[Math.Min(sorted.Count - 1, (int)Math.Ceiling(q * sorted.Count) - 1)], 3);
        return new Percentiles(sorted.Count, At(0.5), At(0.95), At(0.99), Math.Round(sorted[^1], 3));
    }

    internal static IReadOnlyDictionary<string, string> Figures(string figures)
    {
        var map = new SortedDictionary<string, string>(StringComparer.Ordinal);
        foreach (string pair in figures.Split(';', StringSplitOptions.RemoveEmptyEntries))
        {
            string[] kv = pair.Split('=', 2);
            map[kv[0]] = kv.Length == 2 ? kv[1] : "";
        }

        return map;
    }

    internal static string Invariant(double value) => value.ToString("0.###", CultureInfo.InvariantCulture);
}
