using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>The advisor's demand goes in as whole microseconds, bucketed from a table: the same bucket as the time.</summary>
public sealed class HoldTimesCountTests
{
    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(17)]
    [InlineData(128)]
    [InlineData(1023)]
    [InlineData(1024)]
    [InlineData(5000)]
    [InlineData(1 << 29)]
    public void A_count_lands_where_the_same_microseconds_as_a_time_land(long microseconds)
    {
        var asCount = new HoldTimes();
        var asTime = new HoldTimes();
        asCount.RecordMicroseconds(microseconds);
        asTime.Record(TimeSpan.FromTicks(microseconds * TimeSpan.TicksPerMicrosecond));

        Assert.Equal(1, asCount.Count);
        Assert.Equal(asTime.Percentile(1), asCount.Percentile(1));
    }

    [Fact]
    public void Every_count_below_the_table_and_past_it_lands_in_its_own_bucket()
    {
        for (long us = 0; us < 1100; us++)
        {
            var asCount = new HoldTimes();
            asCount.RecordMicroseconds(us);
            TimeSpan? expected = TimeSpan.FromMicroseconds(
                Math.Pow(2, (HoldTimes.Bucket(TimeSpan.FromTicks(us * TimeSpan.TicksPerMicrosecond)) + 0.5) / 8));
            Assert.True(expected == asCount.Percentile(1), $"{us} µs: {asCount.Percentile(1)}, expected {expected}");
        }
    }
}
