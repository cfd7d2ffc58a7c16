namespace Orseis.Diagnostics.Replay;

/// <summary>
/// The clock of a replayed pool: its timestamps are the recorded ones, at the recorded frequency, set to each fact's own
/// time before the detectors hear it; the wall clock is the time the fact's event was written. It never starts a timer.
/// </summary>
internal sealed class ReplayClock(long frequency) : TimeProvider
{
    /// <summary>The current timestamp of the recorded pool's clock.</summary>
    public long Now { get; set; }

    /// <summary>The current wall-clock time (UTC).</summary>
    public DateTimeOffset Utc { get; set; }

    public override long TimestampFrequency => frequency;

    public override long GetTimestamp() => Now;

    public override DateTimeOffset GetUtcNow() => Utc;
}
