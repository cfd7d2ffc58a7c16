using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Orseis.Samples.SlowApp;

/// <summary>
/// The connections MySqlConnector counts as used (taken out of its pool, by a call or a session, or parked in a scope),
/// followed change by change on its meter (<c>db.client.connections.usage</c>, state <c>used</c>): the count now, the
/// most at once since the last <see cref="ResetPeak"/>, and the count integrated over time (connection-seconds), from
/// which two readings give the mean between them. Orseis' own PeakInUse counts a connection parked in a scope as not in
/// use; this counts every connection the pool has handed out. MySql.Data publishes no meter: zero there.
/// </summary>
internal sealed class ProviderUsage : IDisposable
{
    private readonly MeterListener _listener;
    private readonly Lock _lock = new();
    private long _used;
    private long _peak;
    private long _since = Stopwatch.GetTimestamp();
    private double _area;

    /// <summary>Starts listening; the counts are right only for pools created after this.</summary>
    public ProviderUsage()
    {
        _listener = new MeterListener
        {
            InstrumentPublished = static (instrument, listener) =>
            {
                if (instrument.Meter.Name == "MySqlConnector" && !instrument.IsObservable &&
                    instrument.Name is "db.client.connections.usage" or "db.client.connection.count")
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            },
        };
        _listener.SetMeasurementEventCallback<int>((_, value, tags, _) => Changed(value, tags));
        _listener.SetMeasurementEventCallback<long>((_, value, tags, _) => Changed(value, tags));
        _listener.Start();
    }

    /// <summary>Connections used now.</summary>
    public long Used
    {
        get
        {
            lock (_lock)
                return _used;
        }
    }

    /// <summary>The most connections used at once since the start or the last <see cref="ResetPeak"/>.</summary>
    public long Peak
    {
        get
        {
            lock (_lock)
                return _peak;
        }
    }

    /// <summary>The used count integrated over time since the start, in connection-seconds.</summary>
    public double ConnectionSeconds
    {
        get
        {
            lock (_lock)
            {
                Advance();
                return _area;
            }
        }
    }

    /// <summary>Starts a new peak from the connections used now.</summary>
    public void ResetPeak()
    {
        lock (_lock)
            _peak = _used;
    }

    public void Dispose() => _listener.Dispose();

    private void Changed(long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            if (tag.Key is "state" or "db.client.connection.state" && tag.Value is "used")
            {
                lock (_lock)
                {
                    Advance();
                    _used += value;
                    _peak = Math.Max(_peak, _used);
                }

                return;
            }
        }
    }

    private void Advance()
    {
        long now = Stopwatch.GetTimestamp();
        _area += _used * (double)(now - _since) / Stopwatch.Frequency;
        _since = now;
    }
}
