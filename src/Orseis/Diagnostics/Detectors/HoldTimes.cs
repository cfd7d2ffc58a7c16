namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Connection hold times as a log-bucketed histogram (eight buckets per doubling from 1 µs): lock-free to record, enough
/// to read a percentile within 5 %. Also the span from the first acquire to the last release, for the throughput.
/// </summary>
internal sealed class HoldTimes
{
    private const int PerDoubling = 8;
    private const int Buckets = 28 * PerDoubling; // 2^28 µs = 268 s and above in the last
    private readonly long[] _counts = new long[Buckets];
    private long _total;
    private long _first;
    private long _last;

    public long Count => Interlocked.Read(ref _total);

    public void Record(long acquiredAt, long releasedAt, TimeSpan held)
    {
        double us = Math.Max(held.TotalMicroseconds, 1);
        int bucket = Math.Min(Buckets - 1, (int)(PerDoubling * Math.Log2(us)));
        Interlocked.Increment(ref _counts[bucket]);
        Interlocked.Increment(ref _total);
        Interlocked.CompareExchange(ref _first, acquiredAt, 0);
        if (acquiredAt < Volatile.Read(ref _first))
            Volatile.Write(ref _first, acquiredAt);
        if (releasedAt > Volatile.Read(ref _last))
            Volatile.Write(ref _last, releasedAt);
    }

    /// <summary>First acquire and last release seen, as timestamps (0 when none).</summary>
    public (long First, long Last) Span => (Volatile.Read(ref _first), Volatile.Read(ref _last));

    /// <summary>The hold time at <paramref name="quantile"/> (the bucket's geometric middle), or null when none was recorded.</summary>
    public TimeSpan? Percentile(double quantile)
    {
        long total = Count;
        if (total == 0)
            return null;
        long rank = (long)Math.Ceiling(quantile * total);
        long seen = 0;
        for (int i = 0; i < Buckets; i++)
        {
            seen += Interlocked.Read(ref _counts[i]);
            if (seen >= rank && seen > 0)
                return TimeSpan.FromMicroseconds(Math.Pow(2, (i + 0.5) / PerDoubling));
        }

        return null;
    }
}
