namespace Orseis.Trace.Monitor;

/// <summary>The latest values of every pool, fed by the session's thread and read by the display each interval.</summary>
internal sealed class MonitorState(TimeSpan interval)
{
    private const string Retries = "orseis.retries";

    private readonly Lock _gate = new();
    private readonly Dictionary<string, Dictionary<string, MetricValue>> _pools = new(StringComparer.Ordinal);
    private readonly Dictionary<string, List<FindingSnapshot>> _findings = new(StringComparer.Ordinal);
    private double? _queue, _threads;

    public void Add(MetricValue m)
    {
        lock (_gate)
        {
            if (m.Meter == "System.Runtime" && !double.IsNaN(m.Value))
            {
                if (m.Instrument == "dotnet.thread_pool.queue.length")
                    _queue = m.Value;
                else if (m.Instrument == "dotnet.thread_pool.thread.count")
                    _threads = m.Value;
                return;
            }

            if (m.Meter != "Orseis" || double.IsNaN(m.Value))
                return;
            string pool = Tag(m.Tags, "db.client.connection.pool.name") ?? "(unnamed)";
            if (!_pools.TryGetValue(pool, out Dictionary<string, MetricValue>? values))
                _pools[pool] = values = new Dictionary<string, MetricValue>(StringComparer.Ordinal);
            // orseis.retries comes once per reason: each kept under its own key, summed in Take.
            string? part = m.Instrument == Retries ? Tag(m.Tags, "orseis.retry.reason") : Tag(m.Tags, "db.client.connection.state");
            string key = m.Instrument + (part is { } state ? "/" + state : "");
            values[key] = m;
        }
    }

    public void Add(FindingEvent f)
    {
        lock (_gate)
        {
            if (!_findings.TryGetValue(f.Pool, out List<FindingSnapshot>? list))
                _findings[f.Pool] = list = [];
            list.Add(new FindingSnapshot(f.Time == default ? DateTime.Now : f.Time.ToLocalTime(), f.Kind, f.Message, f.Figures));
            if (!_pools.ContainsKey(f.Pool))
                _pools[f.Pool] = new Dictionary<string, MetricValue>(StringComparer.Ordinal);
        }
    }

    /// <summary>The interval's picture; rates and findings start again from nothing.</summary>
    public MonitorSnapshot Take()
    {
        lock (_gate)
        {
            double seconds = interval.TotalSeconds;
            var pools = new List<PoolSnapshot>();
            foreach ((string pool, Dictionary<string, MetricValue> v) in _pools.OrderBy(p => p.Key, StringComparer.Ordinal))
            {
                double Rate(string key) =>
                    v.TryGetValue(key, out MetricValue? m) && m.Kind == "Rate" ? Math.Round(m.Value / seconds, 2) : 0;
                double? Value(string key) => v.TryGetValue(key, out MetricValue? m) ? m.Value : null;
                Quantiles? Q(string key) => v.TryGetValue(key, out MetricValue? m) && m.Value > 0 ? Quantiles.FromSeconds(m.Detail) : null;
                string system = v.Values.Select(m => Tag(m.Tags, "db.system.name")).FirstOrDefault(s => s is not null) ?? "";
                pools.Add(new PoolSnapshot(pool, system, Rate("orseis.connection.opens"), Rate("orseis.commands"),
                    Value("db.client.connection.count/used"), Value("db.client.connection.count/idle"), Value("db.client.connection.max"),
                    Value("db.client.connection.pending_requests"), Q("db.client.connection.wait_time"), Q("db.client.connection.use_time"),
                    Q("db.client.operation.duration"), Rate("db.client.connection.timeouts"), Value("orseis.sessions.active"),
                    _findings.Remove(pool, out List<FindingSnapshot>? found) ? found : [],
                    Math.Round(v.Values.Where(m => m.Instrument == Retries && m.Kind == "Rate").Sum(m => m.Value) / seconds, 2)));
                foreach (string key in v.Where(kv => kv.Value.Kind != "Value").Select(kv => kv.Key).ToList())
                    v.Remove(key);
            }

            return new MonitorSnapshot(DateTime.Now, seconds, pools, new ThreadPoolSnapshot(_queue, _threads));
        }
    }

    internal static string? Tag(string tags, string name)
    {
        foreach (string pair in tags.Split(','))
        {
            int eq = pair.IndexOf('=', StringComparison.Ordinal);
            if (eq > 0 && pair.AsSpan(0, eq).SequenceEqual(name))
                return pair[(eq + 1)..];
        }

        return null;
    }
}
