// orseis-trace: watch the Orseis pools of a running .NET process.
//
//   orseis-trace <pid> [--interval S] [--duration S] [--events]
//
// Every interval it prints the Orseis meter's values (what `dotnet-counters monitor --counters Orseis` shows), and
// each detector finding as it happens. At the end it prints a short summary per pool.
using System.Globalization;
using Orseis.Trace;

if (args.Length == 0 || !int.TryParse(args[0], out int pid))
{
    Console.Error.WriteLine("usage: orseis-trace <pid> [--interval S] [--duration S] [--events]");
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
var totals = new Dictionary<string, double>();
var findings = new List<FindingEvent>();
var gate = new Lock();
using (var session = new OrseisTraceSession(pid, interval, events))
{
    session.Metric += m =>
    {
        lock (gate)
        {
            latest[(m.Instrument, m.Tags)] = m;
            if (m.Kind == "Rate" && !double.IsNaN(m.Value))
                totals[m.Instrument] = totals.GetValueOrDefault(m.Instrument) + m.Value;
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

Console.WriteLine("summary:");
lock (gate)
{
    foreach ((string instrument, double total) in totals.OrderBy(t => t.Key, StringComparer.Ordinal))
        Console.WriteLine($"    {instrument,-40} {total,10:0} in total while attached");
    foreach (IGrouping<string, FindingEvent> kind in findings.GroupBy(f => f.Kind))
        Console.WriteLine($"    findings {kind.Key}: {kind.Count()}");
}

return 0;
