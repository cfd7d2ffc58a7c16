using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Orseis.Samples.SlowApp;

/// <summary>
/// MySqlConnector's pool as its meter tells it change by change: connections created (<c>db.client.connections.create_time</c>,
/// one measurement per connect), idle and used (<c>db.client.connections.usage</c>). A connection is <em>taken</em> from
/// the moment it leaves the idle list until it is back: created minus idle. That includes the reset round trip the
/// provider makes before a pooled connection counts as used, and a connection parked in a scope (Orseis' own PeakInUse
/// counts neither). For both counts: the most at once since the last <see cref="ResetPeaks"/>, and the count integrated
/// over time (connection-seconds), from which two readings give the mean between them. Right while no connection is
/// destroyed (an error or Connection Lifetime would make "taken" count it on); MySql.Data publishes no meter: zeros.
/// </summary>
internal sealed class ProviderUsage : IDisposable
{
    private readonly MeterListener _listener;
    private readonly Lock _lock = new();
    private long _created;
    private long _idle;
    private long _used;
    private long _peakUsed;
    private long _peakTaken;
    private long _since = Stopwatch.GetTimestamp();
    private double _usedSeconds;
    private double _takenSeconds;

    /// <summary>Starts listening; the counts are right only for pools created after this.</summary>
    public ProviderUsage()
    {
        _listener = new MeterListener
        {
            InstrumentPublished = static (instrument, listener) =>
            {
                if (instrument.Meter.Name == "MySqlConnector" && !instrument.IsObservable &&
                    instrument.Name is "db.client.connections.usage" or "db.client.connection.count" or "db.client.connections.create_time")
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            },
        };
        _listener.SetMeasurementEventCallback<int>((instrument, value, tags, _) => Changed(instrument, value, tags));
        _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Changed(instrument, value, tags));
        _listener.SetMeasurementEventCallback<double>((instrument, _, tags, _) => Changed(instrument, 1, tags));
        _listener.Start();
    }

    /// <summary>A reading: the counts now, their peaks since the last <see cref="ResetPeaks"/>, their integrals since the start.</summary>
    public Reading Read()
    {
        lock (_lock)
        {
            Advance();
            return new Reading(_used, Taken, _peakUsed, _peakTaken, _usedSeconds, _takenSeconds);
        }
    }

    /// <summary>Starts new peaks from the counts now.</summary>
    public void ResetPeaks()
    {
        lock (_lock)
        {
            _peakUsed = _used;
            _peakTaken = Taken;
        }
    }

    public void Dispose() => _listener.Dispose();

    private long Taken => _created - _idle;

    private void Changed(Instrument instrument, long value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        if (instrument.Name == "db.client.connections.create_time")
        {
            Count(ref _created, 1);
            return;
        }

        foreach (KeyValuePair<string, object?> tag in tags)
        {
            if (tag.Key is "state" or "db.client.connection.state")
            {
                if (tag.Value is "used")
                    Count(ref _used, value);
                else if (tag.Value is "idle")
                    Count(ref _idle, value);
                return;
            }
        }
    }

    private void Count(ref long field, long change)
    {
        lock (_lock)
        {
            Advance();
            field += change;
            _peakUsed = Math.Max(_peakUsed, _used);
            _peakTaken = Math.Max(_peakTaken, Taken);
        }
    }

    private void Advance()
    {
        long now = Stopwatch.GetTimestamp();
        double seconds = (double)(now - _since) / Stopwatch.Frequency;
        _usedSeconds += _used * seconds;
        _takenSeconds += Taken * seconds;
        _since = now;
    }

    /// <summary>One reading of <see cref="ProviderUsage"/>.</summary>
    internal readonly record struct Reading(
        long Used, long Taken, long PeakUsed, long PeakTaken, double UsedSeconds, double TakenSeconds);
}
