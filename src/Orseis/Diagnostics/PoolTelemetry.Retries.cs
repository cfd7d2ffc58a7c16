using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics;

// A pool's retries (OrseisOptions.Retry), told from the retry path only: FrequentRetries is made at the pool's first retry.
internal sealed partial class PoolTelemetry
{
    private FrequentRetriesDetector? _frequentRetries;

    /// <summary>A call or unit of work of this pool is run again for <paramref name="reason"/> (<see cref="OrseisRetry"/>).</summary>
    public void Retried(string reason)
    {
        if ((_detectors & FindingKind.FrequentRetries) == 0)
            return;
        FrequentRetriesDetector detector = Volatile.Read(ref _frequentRetries)
            ?? Interlocked.CompareExchange(ref _frequentRetries, new FrequentRetriesDetector(_log, _time), null)
            ?? _frequentRetries!;
        detector.OnRetry(reason, Commands);
    }
}
