namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Connection hold times as a log-bucketed histogram (eight buckets per doubling from 1 µs): lock-free to record, enough
/// to read a percentile within 5 %. Also the span from the first acquire to the last release, for the throughput.
/// </summary>
internal sealed class HoldTimes
{
    private const int PerDoubling = 8;
    private const int Buckets = 28 * PerDoubling; // 2^28 µs = 268 s and above in the last
    private const int MantissaBits = 52;

    // The mantissas (fraction bits of a double in [1, 2)) at which each step of 2^(1/PerDoubling) within a doubling begins:
    // a hold's bucket is its exponent and how many of these its mantissa reaches, floor(PerDoubling * log2(us)) without
    // calling log2 on every release (libm's log2 showed as a tenth of Detectors=All's per-call cost in a profile).
    private static readonly long[] StepMantissas = [.. Enumerable.Range(1, PerDoubling - 1)
        .Select(k => BitConverter.DoubleToInt64Bits(Math.Pow(2, (double)k / PerDoubling)) & ((1L << MantissaBits) - 1))];

    /// <summary>
    /// For each of 256 equal cells of the mantissa (its top 8 bits), how many steps begin at or before the cell's start: a
    /// step is 2^(1/8) - 1 (9 %) of a doubling wide at least, so a cell holds at most one step's beginning, and a bucket is
    /// a table read and one comparison instead of a search (the search was about 55 instructions a hold).
    /// </summary>
    private static readonly byte[] StepsBefore = [.. Enumerable.Range(0, 1 << CellBits)
        .Select(cell => (byte)StepMantissas.Count(m => m <= (long)cell << (MantissaBits - CellBits)))];

    private const int CellBits = 8;

    private readonly long[] _counts = new long[Buckets];
    private long _first;
    private long _last;

    /// <summary>Holds recorded (summed over the buckets when read: one interlocked add less per release).</summary>
    public long Count
    {
        get
        {
            long total = 0;
            for (int i = 0; i < Buckets; i++)
                total += Interlocked.Read(ref _counts[i]);
            return total;
        }
    }

    public void Record(long acquiredAt, long releasedAt, TimeSpan held)
    {
        Interlocked.Increment(ref _counts[BucketOf(held)]);
        if (Volatile.Read(ref _first) == 0)
            Interlocked.CompareExchange(ref _first, acquiredAt, 0);
        if (acquiredAt < Volatile.Read(ref _first))
            Volatile.Write(ref _first, acquiredAt);
        if (releasedAt > Volatile.Read(ref _last))
            Volatile.Write(ref _last, releasedAt);
    }

    /// <summary>Records a time that has no span of its own (an open's: <see cref="PoolSizeAdvisor"/>).</summary>
    public void Record(TimeSpan held) => Interlocked.Increment(ref _counts[BucketOf(held)]);

    /// <summary>
    /// Records <paramref name="microseconds"/> whole microseconds (a count kept as one: the advisor's demand), into the
    /// bucket <see cref="Bucket"/> gives that time: from <see cref="TickBuckets"/> below <see cref="SmallCounts"/>, without
    /// the double.
    /// </summary>
    public void RecordMicroseconds(long microseconds) => Interlocked.Increment(ref _counts[
        (ulong)microseconds < SmallCounts
            ? TickBuckets[microseconds * TimeSpan.TicksPerMicrosecond]
            : Bucket(TimeSpan.FromTicks(microseconds * TimeSpan.TicksPerMicrosecond))]);

    /// <summary>Whole microseconds below this are bucketed by <see cref="TickBuckets"/>.</summary>
    private const int SmallCounts = 1024;

    /// <summary>Times of fewer ticks (100 ns) than this, 1.024 ms, are bucketed by <see cref="TickBuckets"/>.</summary>
    internal const int SmallTicks = SmallCounts * (int)TimeSpan.TicksPerMicrosecond;

    /// <summary>
    /// <see cref="Bucket"/> of 0 to <see cref="SmallTicks"/> - 1 ticks: a hold or an open under a millisecond (SQLite, a
    /// pool hit) is bucketed by one read instead of the double's steps (twice an open-per-call call while a detector is on:
    /// docs/results/overhead/2026-11-30d-open-record.md).
    /// </summary>
    private static readonly byte[] TickBuckets = MakeTickBuckets();

    /// <summary>
    /// The bucket of <paramref name="held"/>, as <see cref="Bucket"/> gives it: from <see cref="TickBuckets"/> under
    /// <see cref="SmallTicks"/>.
    /// </summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    internal static int BucketOf(TimeSpan held) => (ulong)held.Ticks < SmallTicks ? TickBuckets[held.Ticks] : Bucket(held);

    /// <summary>
    /// <see cref="TickBuckets"/>, made from <see cref="Bucket"/> itself: it never falls as the time grows, so each bucket's
    /// run of ticks is found by bisection (80 runs of about 14 steps, not one call per tick: a new Database makes this).
    /// </summary>
    private static byte[] MakeTickBuckets()
    {
        var table = new byte[SmallTicks];
        int from = 0;
        while (from < SmallTicks)
        {
            int bucket = Bucket(TimeSpan.FromTicks(from));
            int low = from, high = SmallTicks; // Bucket(low) is bucket; high is past the table or of a later bucket
            while (high - low > 1)
            {
                int middle = (low + high) >>> 1;
                if (Bucket(TimeSpan.FromTicks(middle)) == bucket)
                    low = middle;
                else
                    high = middle;
            }

            table.AsSpan(from, high - from).Fill((byte)bucket);
            from = high;
        }

        return table;
    }

    /// <summary>The bucket of a hold of <paramref name="held"/>: floor(8 log2 µs), 0 below 1 µs, the last from 2^28 µs.</summary>
    internal static int Bucket(TimeSpan held)
    {
        double us = held.TotalMicroseconds;
        if (!(us > 1))
            return 0;
        long bits = BitConverter.DoubleToInt64Bits(us);
        int exponent = (int)(bits >> MantissaBits) - 1023; // us > 1: positive and normal
        long mantissa = bits & ((1L << MantissaBits) - 1);
        int step = StepsBefore[(int)(mantissa >> (MantissaBits - CellBits))];
        if (step < StepMantissas.Length && mantissa >= StepMantissas[step])
            step++;
        return Math.Min(Buckets - 1, exponent * PerDoubling + step);
    }

    /// <summary>
    /// The holds of <paramref name="parts"/> (null ones skipped) as one histogram: their buckets summed, their span the
    /// earliest first acquire to the latest release. Made when a report is, so a release records into one part only.
    /// </summary>
    public static HoldTimes Combined(IEnumerable<HoldTimes?> parts)
    {
        var all = new HoldTimes();
        foreach (HoldTimes? part in parts)
        {
            if (part is null)
                continue;
            for (int i = 0; i < Buckets; i++)
                all._counts[i] += Interlocked.Read(ref part._counts[i]);
            (long first, long last) = part.Span;
            if (first != 0 && (all._first == 0 || first < all._first))
                all._first = first;
            all._last = Math.Max(all._last, last);
        }

        return all;
    }

    /// <summary>First acquire and last release seen, as timestamps (0 when none).</summary>
    public (long First, long Last) Span => (Volatile.Read(ref _first), Volatile.Read(ref _last));

    /// <summary>The mean hold time (each bucket at its geometric middle), or null when none was recorded.</summary>
    public TimeSpan? Mean()
    {
        double sum = 0;
        long total = 0;
        for (int i = 0; i < Buckets; i++)
        {
            long count = Interlocked.Read(ref _counts[i]);
            sum += count * Math.Pow(2, (i + 0.5) / PerDoubling);
            total += count;
        }

        return total == 0 ? null : TimeSpan.FromMicroseconds(sum / total);
    }

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
