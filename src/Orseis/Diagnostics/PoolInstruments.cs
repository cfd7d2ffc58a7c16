using System.Diagnostics.Metrics;

namespace Orseis.Diagnostics;

/// <summary>
/// The synchronous pool instruments of the <c>Orseis</c> meter under one prefix: <c>db.client.connection</c> (the
/// conventional names) or <c>orseis.connection</c> (for pools whose provider publishes the conventional ones itself).
/// Each pool records to one of the two sets (<see cref="PoolTelemetry"/>), never both.
/// </summary>
internal sealed class PoolInstruments
{
    public PoolInstruments(string prefix)
    {
        WaitTime = OrseisMetrics.Meter.CreateHistogram(
            $"{prefix}.wait_time", "s", "The time it took to obtain an open connection (Open: pool wait, reset, physical connect).",
            tags: null, new InstrumentAdvice<double> { HistogramBucketBoundaries = OrseisMetrics.WaitBuckets });
        UseTime = OrseisMetrics.Meter.CreateHistogram(
            $"{prefix}.use_time", "s", "The time between obtaining a connection and giving it back.",
            tags: null, new InstrumentAdvice<double> { HistogramBucketBoundaries = OrseisMetrics.UseBuckets });
        Timeouts = OrseisMetrics.Meter.CreateCounter<long>(
            $"{prefix}.timeouts", "{timeout}", "Opens that timed out waiting for a pooled connection.");
    }

    public Histogram<double> WaitTime { get; }

    public Histogram<double> UseTime { get; }

    public Counter<long> Timeouts { get; }

    /// <summary>Whether a listener wants either timed figure.</summary>
    public bool Timed => WaitTime.Enabled || UseTime.Enabled;
}
