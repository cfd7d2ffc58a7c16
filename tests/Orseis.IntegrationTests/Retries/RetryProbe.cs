using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Orseis.IntegrationTests.Retries;

/// <summary>
/// What a user's telemetry sees of Orseis' retries for one pool: the <c>orseis.retries</c> counter by reason, from a
/// real <see cref="MeterListener"/>, and the <c>orseis.retry</c> events on the pool's spans, from a real
/// <see cref="ActivityListener"/>.
/// </summary>
internal sealed class RetryProbe : IDisposable
{
    private readonly MeterListener _meter = new();
    private readonly ActivityListener _spans;
    private readonly ConcurrentDictionary<string, long> _byReason = new();
    private readonly ConcurrentQueue<ActivityEvent> _events = new();

    /// <param name="poolName">The pool whose retries are counted.</param>
    /// <param name="keepEvents">
    /// Whether the span events are kept (<see cref="Events"/>): a soak, which reads only the counts, keeps none, as each
    /// holds its tags and error message for the life of the probe.
    /// </param>
    public RetryProbe(string poolName, bool keepEvents = true)
    {
        PoolName = poolName;
        _meter.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == "Orseis" && instrument.Name == "orseis.retries")
                listener.EnableMeasurementEvents(instrument);
        };
        _meter.SetMeasurementEventCallback<long>((_, value, tags, _) =>
        {
            string? pool = null, reason = null;
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == "db.client.connection.pool.name")
                    pool = tag.Value as string;
                else if (tag.Key == "orseis.retry.reason")
                    reason = tag.Value as string;
            }

            if (pool == PoolName && reason is not null)
                _byReason.AddOrUpdate(reason, value, (_, n) => n + value);
        });
        _meter.Start();

        _spans = new ActivityListener
        {
            ShouldListenTo = source => source.Name == "Orseis",
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = activity =>
            {
                foreach (ActivityEvent e in activity.Events)
                {
                    if (keepEvents && e.Name == "orseis.retry")
                        _events.Enqueue(e);
                }
            },
        };
        ActivitySource.AddActivityListener(_spans);
    }

    public string PoolName { get; }

    /// <summary>Retries counted for <paramref name="reason"/>.</summary>
    public long Count(string reason) => _byReason.TryGetValue(reason, out long n) ? n : 0;

    /// <summary>Retries counted, every reason.</summary>
    public long Total => _byReason.Values.Sum();

    /// <summary>The <c>orseis.retry</c> span events seen (of every pool: filter by reason where it matters).</summary>
    public IReadOnlyList<ActivityEvent> Events => [.. _events];

    public void Dispose()
    {
        _meter.Dispose();
        _spans.Dispose();
    }
}
