using System.Collections.Concurrent;
using System.Diagnostics;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;
using Orseis.Trace;

namespace Orseis.IntegrationTests.Retries;

// orseis.retries at the user's boundary: a read whose connection the server ends, retried, seen through the OpenTelemetry
// SDK (in-memory exporters, as a user's app exports them) and from outside over EventPipe (the trace tool's session, as
// dotnet-counters reads the meter).
public abstract partial class RetrySuite
{
    /// <summary>The runtime serves one metrics session per process: the two servers' EventPipe tests take turns.</summary>
    private static readonly SemaphoreSlim OneMetricsSession = new(1, 1);

    protected async Task A_retry_is_exported_through_the_OpenTelemetry_SDK()
    {
        string pool = Unique("retry_otel");
        var metrics = new List<MetricSnapshot>();
        var spans = new List<Activity>();
        using (MeterProvider meters = Sdk.CreateMeterProviderBuilder().AddMeter("Orseis").AddInMemoryExporter(metrics).Build())
        using (TracerProvider tracer = Sdk.CreateTracerProviderBuilder().AddSource("Orseis").AddInMemoryExporter(spans).Build())
        {
            await using Database db = Open(pool, retries: true);
            string marker = Unique("mark");
            Task<bool> kill = KillOnceAsync(marker);
            Assert.Equal(42, await db.ScalarAsync<int>(SlowRead(marker)));
            Assert.True(await kill, "the read's connection was never found to be killed");
            Assert.True(meters.ForceFlush(10_000));
            Assert.True(tracer.ForceFlush(10_000));
        }

        // The counter: one retry, on this pool, for its reason (cumulative, as the SDK exports by default).
        (long Value, Dictionary<string, object?> Tags)[] points =
        [
            .. metrics.Where(m => m.Name == "orseis.retries").SelectMany(Points)
                .Where(p => Equals(p.Tags.GetValueOrDefault("db.client.connection.pool.name"), pool)),
        ];
        // One export at the flush and one as the provider is disposed: each the running total, one retry.
        Assert.NotEmpty(points);
        Assert.All(points, p => Assert.Equal((1L, OrseisRetry.ReadConnectionBroken), (p.Value, p.Tags["orseis.retry.reason"])));
        Assert.Equal("{retry}", metrics.First(m => m.Name == "orseis.retries").Unit);

        // The span: the call's one span, ended well, carrying the retry as an event.
        Activity call = Assert.Single(spans, s => s.Events.Any(e => e.Name == "orseis.retry")
            && Equals(s.GetTagItem("db.client.connection.pool.name"), pool));
        Assert.Equal(ActivityStatusCode.Unset, call.Status);
        ActivityEvent retry = Assert.Single(call.Events, e => e.Name == "orseis.retry");
        Dictionary<string, object?> eventTags = retry.Tags.ToDictionary(t => t.Key, t => t.Value);
        Assert.Equal(OrseisRetry.ReadConnectionBroken, eventTags["orseis.retry.reason"]);
        Assert.Equal(1, eventTags["orseis.retry.attempt"]);
        Assert.Equal(typeof(ConnectionBrokenException).FullName, eventTags["exception.type"]);
    }

    protected async Task A_retry_is_counted_over_EventPipe()
    {
        await OneMetricsSession.WaitAsync();
        try
        {
            await RetryCountedOverEventPipe();
        }
        finally
        {
            OneMetricsSession.Release();
        }
    }

    private async Task RetryCountedOverEventPipe()
    {
        string pool = Unique("retry_pipe");
        var values = new ConcurrentQueue<MetricValue>();
        using var session = new OrseisTraceSession(Environment.ProcessId, TimeSpan.FromSeconds(1));
        session.Metric += values.Enqueue;
        await using Database db = Open(pool, retries: true);
        Assert.Equal(1, await db.ScalarAsync<int>("select 1"));

        // The session is live once it publishes this pool's instruments; a retry before that would not be seen.
        await Until(() => values.Any(v => v.Tags.Contains(pool, StringComparison.Ordinal)), "no value of the pool's meter arrived");
        string marker = Unique("mark");
        Task<bool> kill = KillOnceAsync(marker);
        Assert.Equal(42, await db.ScalarAsync<int>(SlowRead(marker)));
        Assert.True(await kill, "the read's connection was never found to be killed");

        bool Retried(MetricValue v) => v.Instrument == "orseis.retries" && v.Tags.Contains(pool, StringComparison.Ordinal) && v.Value > 0;
        await Until(() => values.Any(Retried), "orseis.retries never arrived over EventPipe");
        MetricValue counted = values.First(Retried);
        Assert.Equal(1, counted.Value); // the counter's increase in its interval: the one retry
        Assert.Contains("orseis.retry.reason=" + OrseisRetry.ReadConnectionBroken, counted.Tags, StringComparison.Ordinal);
    }

    private static async Task Until(Func<bool> condition, string failure)
    {
        DateTime deadline = DateTime.UtcNow.AddSeconds(20);
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, failure);
            await Task.Delay(100);
        }
    }

    private static IEnumerable<(long Value, Dictionary<string, object?> Tags)> Points(MetricSnapshot metric)
    {
        foreach (MetricPoint point in metric.MetricPoints)
        {
            var tags = new Dictionary<string, object?>();
            foreach (KeyValuePair<string, object?> tag in point.Tags)
                tags[tag.Key] = tag.Value;
            yield return (point.GetSumLong(), tags);
        }
    }
}
