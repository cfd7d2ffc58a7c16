using Orseis.Trace.Monitor;

namespace Orseis.Trace.Report;

/// <summary>One pool's events, meter values and findings, in the trace's order.</summary>
internal sealed class PoolFacts(string name)
{
    public string Name { get; } = name;

    public string System { get; private set; } = "";

    public List<FindingEvent> Findings { get; } = [];

    /// <summary>Each completed open: when, and how long it took (ms).</summary>
    public List<(DateTime Time, double Ms)> Opens { get; } = [];

    /// <summary>Connections held through Orseis at each event that says (after an open; before a release), with its time.</summary>
    public List<(DateTime Time, int InUse)> InUse { get; } = [];

    private readonly List<double> _commandMs = [];
    private readonly List<double> _heldMs = [];
    private MeterCount _meterOpens, _meterCommands;
    private double _timeouts;
    private double? _peakInUse, _max, _peakWaiting, _peakWaitP99;
    private int _peakPendingEvents = -1;

    public void Add(MetricValue m)
    {
        System = MonitorState.Tag(m.Tags, "db.system.name") ?? System;
        switch (m.Instrument)
        {
            case "orseis.connection.opens":
                _meterOpens.Add(m);
                break;
            case "orseis.commands":
                _meterCommands.Add(m);
                break;
            case "db.client.connection.timeouts":
                _timeouts += m.Value;
                break;
            case "db.client.connection.count" when MonitorState.Tag(m.Tags, "db.client.connection.state") == "used":
                _peakInUse = Math.Max(_peakInUse ?? 0, m.Value);
                break;
            case "db.client.connection.max":
                _max = m.Value;
                break;
            case "db.client.connection.pending_requests":
                _peakWaiting = Math.Max(_peakWaiting ?? 0, m.Value);
                break;
            case "db.client.connection.wait_time" when m.Value > 0 && Quantiles.FromSeconds(m.Detail) is { } q:
                _peakWaitP99 = Math.Max(_peakWaitP99 ?? 0, q.P99);
                break;
        }
    }

    public void Add(PoolEvent e)
    {
        switch (e.Name)
        {
            case "Open/Stop" when !double.IsNaN(e.DurationMs):
                Opens.Add((e.Time, e.DurationMs));
                break;
            case "Command/Stop" when !double.IsNaN(e.DurationMs):
                _commandMs.Add(e.DurationMs);
                break;
            case "Released" when !double.IsNaN(e.DurationMs):
                _heldMs.Add(e.DurationMs);
                break;
        }

        // Released says how many stay held after it: the released one was held with them until then.
        if (e.InUse >= 0)
            InUse.Add((e.Time, e.Name == "Released" ? e.InUse + 1 : e.InUse));
        if (e.Pending >= 0)
            _peakPendingEvents = Math.Max(_peakPendingEvents, e.Pending);
    }

    public PoolReport Build(double seconds, ReplayReport? replay)
    {
        CountReport Count(List<double> events, MeterCount meter)
        {
            double PerSecond(double n) => seconds > 0 ? Math.Round(n / seconds, 2) : 0;
            return events.Count > 0
                ? new CountReport(events.Count, PerSecond(events.Count), TraceFacts.PercentilesOf(events), "events")
                : new CountReport(Math.Round(meter.Sum, 3), Math.Round(meter.PerSecond, 2), null, meter.Sum > 0 ? "meter" : "none");
        }

        var findings = Findings
            .Select(f => new FindingReport(f.Time.ToUniversalTime(), f.Kind, f.Message, TraceFacts.Figures(f.Figures))).ToList();
        List<string> found = [.. findings.Select(f => f.Kind).Distinct().Order(StringComparer.Ordinal)];
        double? peakInUse = InUse.Count > 0 ? Math.Max(_peakInUse ?? 0, InUse.Max(i => i.InUse)) : _peakInUse;
        double? peakWaiting = _peakPendingEvents >= 0 ? Math.Max(_peakWaiting ?? 0, _peakPendingEvents) : _peakWaiting;
        return new PoolReport(Name, System, found, findings, replay, Count([.. Opens.Select(o => o.Ms)], _meterOpens),
            Count(_commandMs, _meterCommands),
            TraceFacts.PercentilesOf(_heldMs), peakInUse, _max, peakWaiting, _timeouts, _peakWaitP99);
    }

    /// <summary>
    /// A counter's published values: each is the count of the interval that ends when it is published, so the rate is
    /// what came after the first publication over the time from it to the last (the recorded span misses the first
    /// interval's start).
    /// </summary>
    private struct MeterCount
    {
        private double _first;
        private DateTime _firstAt, _lastAt;
        private int _values;

        public double Sum { get; private set; }

        public readonly double PerSecond => _values > 1 && _lastAt > _firstAt ? (Sum - _first) / (_lastAt - _firstAt).TotalSeconds : 0;

        public void Add(MetricValue m)
        {
            if (_values++ == 0)
            {
                _first = m.Value;
                _firstAt = m.Time;
            }

            _lastAt = m.Time;
            Sum += m.Value;
        }
    }
}
