using System.Globalization;

namespace Orseis.Trace;

/// <summary>What one pool did while orseis-trace was attached, from the meter's values and the findings.</summary>
internal sealed class PoolSummary(string pool)
{
    private readonly Dictionary<string, double> _totals = [];
    private readonly Dictionary<string, int> _intervals = [];
    private readonly Dictionary<string, double> _peaks = [];
    private readonly Dictionary<string, double> _last = [];

    public string Pool { get; } = pool;

    public static string PoolOf(string tags) =>
        tags.Split(',').Select(t => t.Split('=', 2)).FirstOrDefault(kv => kv[0] == "db.client.connection.pool.name") is [_, var name] ? name : "(unnamed)";

    public void Add(MetricValue m)
    {
        if (double.IsNaN(m.Value))
            return;
        string key = m.Instrument + (m.Tags.Contains("state=idle", StringComparison.Ordinal) ? " (idle)" : "");
        if (m.Kind == "Rate")
        {
            _totals[key] = _totals.GetValueOrDefault(key) + m.Value;
            _intervals[key] = _intervals.GetValueOrDefault(key) + 1;
        }
        else if (m.Kind == "Value")
        {
            _peaks[key] = Math.Max(_peaks.GetValueOrDefault(key), m.Value);
            _last[key] = m.Value;
        }
        else if (m.Kind == "Histogram")
        {
            _last[key] = m.Detail.Split(';').Select(q => q.Split('=')).FirstOrDefault(q => q[0] == "0.5") is [_, var p50] &&
                         double.TryParse(p50, NumberStyles.Float, CultureInfo.InvariantCulture, out double v) ? v : double.NaN;
        }
    }

    public string Report(TimeSpan interval, IReadOnlyList<FindingEvent> findings)
    {
        double PerSecond(string key) => _intervals.GetValueOrDefault(key) is > 0 and var n ? _totals[key] / n / interval.TotalSeconds : 0;
        string Ms(string key) => _last.TryGetValue(key, out double s) && !double.IsNaN(s) ? $"{s * 1000:0.###} ms" : "-";
        var text = new System.Text.StringBuilder();
        text.AppendLine(CultureInfo.InvariantCulture, $"pool report '{Pool}' (while attached):");
        text.AppendLine(CultureInfo.InvariantCulture, $"    opens/s {PerSecond("orseis.connection.opens"):0.##}, commands/s {PerSecond("orseis.commands"):0.##}, opens/command {_last.GetValueOrDefault("orseis.connection.opens_per_command"):0.###}");
        text.AppendLine(CultureInfo.InvariantCulture, $"    in use now {_last.GetValueOrDefault("db.client.connection.count")} (peak {_peaks.GetValueOrDefault("db.client.connection.count")}), waiting in Open peak {_peaks.GetValueOrDefault("db.client.connection.pending_requests")}, active sessions peak {_peaks.GetValueOrDefault("orseis.sessions.active")}");
        text.AppendLine(CultureInfo.InvariantCulture, $"    median open (wait) {Ms("db.client.connection.wait_time")}, use {Ms("db.client.connection.use_time")}, command {Ms("db.client.operation.duration")} (last interval)");
        text.AppendLine(CultureInfo.InvariantCulture, $"    timeouts {_totals.GetValueOrDefault("db.client.connection.timeouts")}, reuse waits {_totals.GetValueOrDefault("orseis.reuse.waits")}");
        text.Append(CultureInfo.InvariantCulture, $"    findings: {(findings.Count == 0 ? "none" : string.Join(", ", findings.GroupBy(f => f.Kind).Select(g => $"{g.Key} {g.Count()}")))}");
        return text.ToString();
    }
}
