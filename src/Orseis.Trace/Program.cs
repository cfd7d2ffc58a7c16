// orseis-trace: watch the Orseis pools of a running .NET process.
//
//   orseis-trace <pid> [--interval S] [--duration S] [--events]
//   orseis-trace --file TRACE.nettrace
//
// Attached to a process, every interval it prints the Orseis meter's values (what `dotnet-counters monitor --counters
// Orseis` shows), and each detector finding as it happens. At the end it prints a short summary per pool.
// With --file it prints the Orseis events and meter values of a trace written by `dotnet-trace collect`, in order.
using System.Globalization;
using Orseis.Trace;

const string Usage = "usage: orseis-trace <pid> [--interval S] [--duration S] [--events]\n       orseis-trace --file TRACE.nettrace";
if (args is ["--file", string file])
    return PrintFile(file);
if (args.Length == 0 || !int.TryParse(args[0], out int pid))
{
    Console.Error.WriteLine(Usage);
    return 2;
}

TimeSpan interval = TimeSpan.FromSeconds(1);
TimeSpan? duration = null;
bool events = false;
for (int i = 1; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--interval": interval = TimeSpan.FromSeconds(double.Parse(args[++i], CultureInfo.InvariantCulture)); break;
        case "--duration": duration = TimeSpan.FromSeconds(double.Parse(args[++i], CultureInfo.InvariantCulture)); break;
        case "--events": events = true; break;
        default:
            Console.Error.WriteLine($"unknown option {args[i]}");
            return 2;
    }
}

using var stop = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) =>
{
    e.Cancel = true;
    stop.Cancel();
};
if (duration is { } d)
    stop.CancelAfter(d);

var latest = new Dictionary<(string Instrument, string Tags), MetricValue>();
var pools = new Dictionary<string, PoolSummary>();
var findings = new List<FindingEvent>();
var gate = new Lock();
using (var session = new OrseisTraceSession(pid, interval, events))
{
    session.Metric += m =>
    {
        lock (gate)
        {
            latest[(m.Instrument, m.Tags)] = m;
            string pool = PoolSummary.PoolOf(m.Tags);
            if (!pools.TryGetValue(pool, out PoolSummary? summary))
                pools[pool] = summary = new PoolSummary(pool);
            summary.Add(m);
        }
    };
    session.Finding += f =>
    {
        lock (gate)
            findings.Add(f);
        Console.WriteLine($"FINDING [{f.Kind}] {f.Pool}: {f.Message} ({f.Figures})");
    };
    session.OtherEvent += (name, payload) => Console.WriteLine($"event {name}: {payload}");
    Console.WriteLine($"orseis-trace: attached to {pid}; Ctrl+C to stop.");
    try
    {
        using var timer = new PeriodicTimer(interval);
        while (await timer.WaitForNextTickAsync(stop.Token))
        {
            lock (gate)
            {
                if (latest.Count == 0)
                    continue;
                Console.WriteLine($"[{DateTime.Now:HH:mm:ss}] Orseis");
                foreach (MetricValue m in latest.Values.OrderBy(m => m.Instrument, StringComparer.Ordinal).ThenBy(m => m.Tags, StringComparer.Ordinal))
                {
                    string value = m.Kind switch
                    {
                        "Rate" => $"{m.Value,10:0.##} / {interval.TotalSeconds:0.#} s",
                        "Histogram" => $"{m.Value,10:0} in interval  {m.Detail}",
                        _ => $"{m.Value,10:0.###}",
                    };
                    Console.WriteLine($"    {m.Instrument,-40} {value}   [{m.Tags}]");
                }

                latest.Clear();
            }
        }
    }
    catch (OperationCanceledException)
    {
    }
}

lock (gate)
{
    foreach (PoolSummary summary in pools.Values.OrderBy(p => p.Pool, StringComparer.Ordinal))
        Console.WriteLine(summary.Report(interval, findings.Where(f => f.Pool == summary.Pool).ToList()));
}

return 0;

static int PrintFile(string path)
{
    if (!File.Exists(path))
    {
        Console.Error.WriteLine($"orseis-trace: {path} not found");
        return 2;
    }

    int events = 0, values = 0;
    OrseisEventDecoder.ReadFile(path, decoder =>
    {
        decoder.OtherEvent += (time, name, payload) =>
        {
            events++;
            Console.WriteLine($"{time:HH:mm:ss.fff} Orseis/{name}: {payload}");
        };
        decoder.Finding += f =>
        {
            events++;
            Console.WriteLine($"FINDING [{f.Kind}] {f.Pool}: {f.Message} ({f.Figures})");
        };
        decoder.Metric += m =>
        {
            values++;
            string value = m.Kind == "Histogram" ? $"{m.Value:0} in interval  {m.Detail}" : m.Value.ToString("0.###", CultureInfo.InvariantCulture);
            Console.WriteLine($"metric {m.Instrument} = {value}   [{m.Tags}]");
        };
    });
    Console.WriteLine($"{path}: {events} Orseis event(s), {values} Orseis meter value(s)");
    return 0;
}

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
