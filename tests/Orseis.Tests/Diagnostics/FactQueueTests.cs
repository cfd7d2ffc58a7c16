using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;
using Orseis.Tests.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics;

/// <summary>
/// <see cref="FactQueue"/>: the facts observers off the call hear, in the order the calls wrote them, a drain period later
/// at most, on the clock of each fact; a full ring loses none; a failed open is told at once.
/// </summary>
public sealed class FactQueueTests
{
    [Fact]
    public void Facts_wait_for_a_drain_and_then_arrive_in_order_each_on_its_own_time()
    {
        var fake = new Fake();
        var heard = new Listening();
        using var queue = new FactQueue(Steps(heard), fake.Time);
        var clock = new FactQueue.DrainClock(fake.Time);
        heard.Clock = clock;
        OpenStart start = fake.Start();
        queue.Add(start);
        fake.Time.Advance(Fake.Ms(5));
        queue.Add(new CompletedOpen(start, default, fake.Now, false, default));
        fake.Time.Advance(Fake.Ms(7));
        long releasedAt = fake.Now;
        queue.Add(new Release(new HolderTable.Holder(start.Started, "call", null, false), Fake.Ms(7), releasedAt));
        Assert.Empty(heard.Facts); // nothing on the call

        fake.Time.Advance(Fake.Ms(50));
        queue.Drain();
        Assert.Equal(["start", "completed", "released"], heard.Facts.Select(f => f.Kind));
        // Each heard at its own time, though the drain ran 50 ms after the last.
        Assert.Equal([start.Started, start.Started + Ticks(fake, 5), releasedAt], heard.Facts.Select(f => f.ClockRead));
        Assert.Equal(fake.Now, clock.GetTimestamp()); // off the drain, the pool's clock
    }

    [Fact]
    public void A_drain_comes_by_itself_within_the_drain_period()
    {
        var fake = new Fake();
        var heard = new Listening();
        using var queue = new FactQueue(Steps(heard), fake.Time);
        queue.Add(fake.Start());
        fake.Time.Advance(FactQueue.DrainPeriod - TimeSpan.FromMilliseconds(1));
        Assert.Empty(heard.Facts);
        fake.Time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.Equal(["start"], heard.Facts.Select(f => f.Kind));

        queue.Add(fake.Start()); // the timer is armed again by the next fact
        fake.Time.Advance(FactQueue.DrainPeriod);
        Assert.Equal(2, heard.Facts.Count);
    }

    [Fact]
    public void A_failed_open_is_told_at_once_after_the_facts_before_it()
    {
        var fake = new Fake();
        var heard = new Listening();
        using var queue = new FactQueue(Steps(heard), fake.Time);
        OpenStart start = fake.Start();
        queue.Add(start);
        queue.Add(new FailedOpen(start, new OpenFailure(new TimeoutException(), OpenTimeout.None, false, false), null));
        Assert.Equal(["start", "failed"], heard.Facts.Select(f => f.Kind));
    }

    [Fact]
    public void A_full_ring_loses_no_fact_and_keeps_their_order_from_several_threads()
    {
        var fake = new Fake();
        var heard = new Listening();
        using var queue = new FactQueue(Steps(heard), fake.Time);
        const int PerThread = 5_000;
        Parallel.For(0, 4, thread =>
        {
            for (int i = 1; i <= PerThread; i++)
                queue.Add(new OpenStart(Started: i, InUse: thread, Demand: 1, PhysicalConnects: 0, CreateSeconds: 0, Async: false));
        });
        queue.Drain();
        Assert.Equal(4 * PerThread, heard.Facts.Count);
        // Per thread, in the order that thread wrote them.
        foreach (IGrouping<int, (string Kind, long ClockRead, int Thread, long Started)> ofThread in heard.Facts.GroupBy(f => f.Thread))
            Assert.Equal(Enumerable.Range(1, PerThread).Select(i => (long)i), ofThread.Select(f => f.Started));
    }

    [Fact]
    public void A_pool_report_hears_every_fact_first()
    {
        var fake = new Fake();
        using var telemetry = new PoolTelemetry("pool", "sqlite", 10, fake.Options);
        OpenStart start = telemetry.OpenStarting(async: false);
        fake.Time.Advance(Fake.Ms(1));
        long openedAt = telemetry.OpenCompleted(start);
        using var db = new Microsoft.Data.Sqlite.SqliteConnection("Data Source=:memory:");
        int hold = telemetry.Acquired(db, "call", openedAt: openedAt);
        fake.Time.Advance(Fake.Ms(20));
        telemetry.Released(db, hold);
        // The advisor (off the call) has heard the hold of 20 ms by the time the report asks it.
        PoolReport report = telemetry.CreateReport(ExecutionMode.OpenPerCall);
        Assert.NotNull(report.MedianHoldTime);
        Assert.InRange(report.MedianHoldTime!.Value.TotalMilliseconds, 15, 25);
    }

    private static long Ticks(Fake fake, double ms) => (long)(ms / 1000 * fake.Time.TimestampFrequency);

    private static PoolObservers.Steps Steps(PoolObserver observer) => new([observer]);

    /// <summary>Writes down each fact it hears, the clock as it read then, and the thread that wrote an open start.</summary>
    private sealed class Listening : PoolObserver
    {
        public TimeProvider? Clock { get; set; }

        public List<(string Kind, long ClockRead, int Thread, long Started)> Facts { get; } = [];

        public override HeardFacts Hears => HeardFacts.OpenStarting | HeardFacts.OpenCompleted | HeardFacts.OpenFailed | HeardFacts.Released;

        public override bool LearnsOffTheCall => true;

        public override void OnOpenStarting(in OpenStart start) => Facts.Add(("start", Read(), start.InUse, start.Started));

        public override void OnOpenCompleted(in CompletedOpen open) => Facts.Add(("completed", Read(), -1, open.Start.Started));

        public override void OnOpenFailed(in FailedOpen open) => Facts.Add(("failed", Read(), -1, open.Start.Started));

        public override void OnReleased(in Release release) => Facts.Add(("released", Read(), -1, release.Holder.Started));

        private long Read() => Clock?.GetTimestamp() ?? 0;
    }
}
