using Orseis.Scenarios;

namespace Orseis.Benchmarks.Tests;

/// <summary>
/// The judge of a followed pool-size advice: the advised size keeps 90 % of the throughput, and a larger size passes no
/// more than 5 % over it; a kept size is judged by the larger size alone (its advised / current is two runs of one size).
/// </summary>
public sealed class AdviceFollowedTests
{
    [Theory]
    [InlineData(2.01, null, true)]   // raised from 8 to 42: twice the throughput, no larger size to run
    [InlineData(1.08, 0.94, true)]   // raised from 16 to 40, four times it passed less
    [InlineData(1.04, 1.14, false)]  // four times the advised size passed 1.14 times as much: the size was not enough
    [InlineData(0.98, 1.05, true)]   // at the margin
    [InlineData(0.89, null, false)]  // the advised size lost over a tenth
    [InlineData(0.90, 1.0, true)]
    public void An_advice_holds_when_the_advised_size_keeps_the_throughput_and_a_larger_one_passes_no_more(
        double kept, double? larger, bool holds) =>
        Assert.Equal(holds, AdviceFollowed.Holds(kept, larger));

    [Theory]
    [InlineData(0.83, 0.88, true)]   // kept 16: two runs of 16 read 0.83 apart, four times it passed less
    [InlineData(0.92, 1.05, true)]   // at the margin (a printed 1.05 can be just over it: then not)
    [InlineData(0.92, 1.051, false)]
    [InlineData(1.00, 1.19, false)]  // kept 16, four times it passed 1.19 times as much: not enough
    [InlineData(0.80, null, true)]   // kept, no larger size to run: following it changes nothing
    public void A_kept_size_is_judged_by_the_larger_size_alone(double sameSizeTwice, double? larger, bool holds) =>
        Assert.Equal(holds, AdviceFollowed.Holds(sameSizeTwice, larger, sameSize: true));
}
