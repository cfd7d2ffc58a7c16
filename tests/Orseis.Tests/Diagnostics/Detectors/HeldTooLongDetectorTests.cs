using System.Diagnostics;
using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Tests.Diagnostics.Detectors;

public sealed class HeldTooLongDetectorTests
{
    [Fact]
    public void A_holder_past_the_threshold_is_reported_once_with_where_it_was_acquired()
    {
        var fake = new Fake(o => o.HeldTooLongThreshold = TimeSpan.FromSeconds(30));
        var holders = new HolderTable(fake.Time);
        var detector = new HeldTooLongDetector(fake.Log, holders);
        using var connection = new Microsoft.Data.Sqlite.SqliteConnection();
        holders.Add(connection, "session on 'pool'", heldByDesign: false, new HolderTable.Acquirer(new StackTrace()), fake.Now);
        fake.Time.Advance(TimeSpan.FromSeconds(29));
        detector.MaybeScan(force: true);
        Assert.Empty(fake.Log.Kept);

        fake.Time.Advance(TimeSpan.FromSeconds(2));
        detector.MaybeScan(force: true);
        detector.MaybeScan(force: true);
        PoolFinding finding = Assert.Single(fake.Findings(FindingKind.HeldTooLong));
        Assert.Equal(31_000, finding.Figures["heldMs"], 0);
        Assert.Contains(nameof(A_holder_past_the_threshold_is_reported_once_with_where_it_was_acquired), finding.Location, StringComparison.Ordinal);
    }

    [Fact]
    public void A_new_hold_makes_the_detector_look_and_report_one_still_held_whether_or_not_the_pool_is_traced()
    {
        foreach (bool traced in (bool[])[false, true])
        {
            // The hold's start is told to the detector directly while nobody traces, through the list while a session does.
            var logger = new LinesLogger();
            var fake = new Fake(o =>
            {
                o.Detectors = FindingKind.HeldTooLong;
                o.HeldTooLongThreshold = TimeSpan.FromSeconds(30);
                o.Logger = logger;
            });
            using var session = traced ? new EventCollector() : null; // a session on the Orseis source
            using var telemetry = new PoolTelemetry("pool", "sqlite", null, fake.Options);
            using var held = new Microsoft.Data.Sqlite.SqliteConnection();
            using var next = new Microsoft.Data.Sqlite.SqliteConnection();
            telemetry.Acquired(held, "a stream on 'pool'", openedAt: fake.Now);
            fake.Time.Advance(TimeSpan.FromSeconds(31));
            Assert.Empty(logger.Lines);

            // Nothing was released: only the next hold's start makes the detector scan the held connections.
            telemetry.Acquired(next, "a call on 'pool'", openedAt: fake.Now);
            string line = Assert.Single(logger.Lines);
            Assert.Contains("a stream on 'pool'", line, StringComparison.Ordinal);
        }
    }

    private sealed class LinesLogger : Microsoft.Extensions.Logging.ILogger
    {
        public List<string> Lines { get; } = [];

        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(Microsoft.Extensions.Logging.LogLevel logLevel) => true;

        public void Log<TState>(
            Microsoft.Extensions.Logging.LogLevel logLevel, Microsoft.Extensions.Logging.EventId eventId, TState state, Exception? exception,
            Func<TState, Exception?, string> formatter)
        {
            lock (Lines)
                Lines.Add(formatter(state, exception));
        }
    }

    [Fact]
    public void A_hold_is_timed_from_when_its_open_completed_and_untimed_when_the_open_was()
    {
        var fake = new Fake(o =>
        {
            o.Detectors = FindingKind.HeldTooLong;
            o.HeldTooLongThreshold = TimeSpan.FromSeconds(30);
        });
        using var telemetry = new PoolTelemetry("pool", "sqlite", null, fake.Options);
        using var connection = new Microsoft.Data.Sqlite.SqliteConnection();
        OpenStart open = telemetry.OpenStarting(async: false);
        fake.Time.Advance(TimeSpan.FromSeconds(1));
        long openedAt = telemetry.OpenCompleted(open, connection);
        Assert.Equal(fake.Now, openedAt);

        // Whatever happens between the open and the acquire is part of the hold: 31 s, over the threshold.
        fake.Time.Advance(TimeSpan.FromSeconds(31));
        int hold = telemetry.Acquired(connection, "session on 'pool'", openedAt: openedAt);
        telemetry.Released(connection, hold);
        PoolFinding finding = Assert.Single(telemetry.CreateReport(ExecutionMode.OpenPerCall).Findings, f => f.Kind == FindingKind.HeldTooLong);
        Assert.Equal(31_000, finding.Figures["heldMs"], 0);

        // An open that was not timed (0: nothing listened when it started) leaves its hold untimed: 40 s, no finding.
        fake.Time.Advance(TimeSpan.FromMinutes(5));
        hold = telemetry.Acquired(connection, "session on 'pool'", openedAt: 0);
        Assert.Equal(HolderTable.NoHold, hold);
        fake.Time.Advance(TimeSpan.FromSeconds(40));
        telemetry.Released(connection, hold);
        Assert.Single(telemetry.CreateReport(ExecutionMode.OpenPerCall).Findings, f => f.Kind == FindingKind.HeldTooLong);
    }

    [Fact]
    public void Scans_between_checks_cost_nothing_and_a_connection_held_by_design_is_never_a_suspect()
    {
        var fake = new Fake(o => o.HeldTooLongThreshold = TimeSpan.FromSeconds(4));
        var holders = new HolderTable(fake.Time);
        var detector = new HeldTooLongDetector(fake.Log, holders);
        using var shared = new Microsoft.Data.Sqlite.SqliteConnection();
        holders.Add(shared, "the shared connection", heldByDesign: true, null, fake.Now);
        detector.MaybeScan();
        fake.Time.Advance(TimeSpan.FromMinutes(5));
        detector.MaybeScan();
        Assert.Empty(fake.Log.Kept);
    }
}
