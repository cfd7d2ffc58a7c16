// orseis-trace: watch the Orseis pools of a running .NET process.
//
//   orseis-trace <pid> [--interval S] [--duration S] [--events]
//   orseis-trace --file TRACE.nettrace
//
// Attached to a process, every interval it prints the Orseis meter's values (what `dotnet-counters monitor --counters
// Orseis` shows), and each detector finding as it happens. At the end it prints a short summary per pool.
// With --file it prints the Orseis events and meter values of a trace written by `dotnet-trace collect`, in order.
using System.CommandLine;
using System.Globalization;
using Microsoft.Diagnostics.NETCore.Client;
using Orseis.Trace;

var pid = new Argument<int?>("pid") { Description = "the .NET process to attach to (dotnet-trace ps lists them)", Arity = ArgumentArity.ZeroOrOne };
var interval = new Option<double>("--interval") { Description = "seconds between meter readings", DefaultValueFactory = _ => 1 };
var duration = new Option<double?>("--duration") { Description = "detach after this many seconds (default: at Ctrl+C)" };
var events = new Option<bool>("--events") { Description = "also print every Orseis event (open, command, release), not only findings" };
var file = new Option<FileInfo>("--file") { Description = "print the Orseis events and meter values of a .nettrace file instead of attaching" };
file.AcceptExistingOnly();
interval.Validators.Add(r =>
{
    if (r.GetValueOrDefault<double>() is not (> 0 and <= 3600))
        r.AddError("--interval must be between 0 and 3600 seconds");
});
duration.Validators.Add(r =>
{
    if (r.GetValueOrDefault<double?>() is <= 0)
        r.AddError("--duration must be a positive number of seconds");
});
var root = new RootCommand("Watch the Orseis connection pools of a running .NET process over EventPipe, or read a .nettrace file")
{
    pid, interval, duration, events, file,
};
root.Validators.Add(r =>
{
    bool attach = r.GetResult(pid) is { Tokens.Count: > 0 }, read = r.GetResult(file) is { Tokens.Count: > 0 };
    if (attach == read)
        r.AddError("give either a process id to attach to or --file TRACE.nettrace");
});
root.SetAction(async (parse, _) =>
{
    if (parse.GetValue(file) is { } trace)
        return PrintFile(trace.FullName);
    try
    {
        return await Watch(parse.GetValue(pid)!.Value, TimeSpan.FromSeconds(parse.GetValue(interval)),
            parse.GetValue(duration) is { } d ? TimeSpan.FromSeconds(d) : null, parse.GetValue(events));
    }
    catch (ServerNotAvailableException error)
    {
        await Console.Error.WriteLineAsync(
            $"orseis-trace: cannot attach to process {parse.GetValue(pid)}: no .NET process with that id is running as this user, or its diagnostics are off ({error.Message})");
        return 2;
    }
});
return await root.Parse(args).InvokeAsync();

static async Task<int> Watch(int pid, TimeSpan interval, TimeSpan? duration, bool events)
{
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
                PrintInterval(latest, gate, interval);
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
}

static void PrintInterval(Dictionary<(string Instrument, string Tags), MetricValue> latest, Lock gate, TimeSpan interval)
{
    lock (gate)
    {
        if (latest.Count == 0)
            return;
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

static int PrintFile(string path)
{
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
