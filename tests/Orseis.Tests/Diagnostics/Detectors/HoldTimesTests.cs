using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

public sealed class HoldTimesTests
{
    [Fact]
    public void A_hold_lands_in_the_bucket_of_eight_per_doubling_that_log2_gives()
    {
        var random = new Random(11);
        IEnumerable<double> microseconds = [
            0, 0.5, 1, 1.0000001, 1.09, 1.0905, 2, 3, 1000, 1 << 20, 268_435_455, 268_435_456, 1e12,
            .. Enumerable.Range(0, 28 * 8).Select(k => Math.Pow(2, k / 8.0) * 1.0001), // just past each boundary
            .. Enumerable.Range(1, 28 * 8).Select(k => Math.Pow(2, k / 8.0) * 0.9999), // just before each
            .. Enumerable.Range(0, 10_000).Select(_ => Math.Pow(2, random.NextDouble() * 30)),
        ];
        foreach (double us in microseconds)
        {
            TimeSpan held = TimeSpan.FromMicroseconds(us); // whole ticks of 100 ns
            int expected = Math.Min(28 * 8 - 1, (int)(8 * Math.Log2(Math.Max(held.TotalMicroseconds, 1))));
            int bucket = HoldTimes.Bucket(held);
            Assert.True(expected == bucket, $"{held.TotalMicroseconds} µs: bucket {bucket}, log2 gives {expected}");
        }
    }

    [Fact]
    public void The_table_of_short_times_gives_every_tick_the_bucket_that_Bucket_gives()
    {
        // Every time under the table's end, the end itself and beyond, negative and huge: the table's bucket is Bucket's.
        for (long ticks = -3; ticks <= HoldTimes.SmallTicks + 3; ticks++)
        {
            TimeSpan held = TimeSpan.FromTicks(ticks);
            int bucket = HoldTimes.Bucket(held), fromTable = HoldTimes.BucketOf(held);
            Assert.True(bucket == fromTable, $"{ticks} ticks: {fromTable} from the table, {bucket} from Bucket");
        }

        foreach (TimeSpan held in new[] { TimeSpan.MinValue, TimeSpan.FromSeconds(1), TimeSpan.FromDays(3), TimeSpan.MaxValue })
            Assert.Equal(HoldTimes.Bucket(held), HoldTimes.BucketOf(held));

        // The table's first bucket past 0 starts at 1 µs (and a little: 1 µs itself is bucket 0) and its last is 1.024 ms's.
        Assert.Equal(0, HoldTimes.BucketOf(TimeSpan.FromTicks(10)));
        Assert.Equal(79, HoldTimes.BucketOf(TimeSpan.FromTicks(HoldTimes.SmallTicks - 1)));
    }
}
