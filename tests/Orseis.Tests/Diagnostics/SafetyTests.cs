using System.Diagnostics;
using Microsoft.Extensions.Logging;
using Orseis.Diagnostics;

namespace Orseis.Tests.Diagnostics;

[Collection(DiagnosticsCollection.Name)]
public sealed class SafetyTests : DiagTest
{
    [Fact]
    public void Throwing_listeners_and_loggers_never_break_a_query_or_change_its_result()
    {
        List<string> expected;
        using (Database quiet = Open())
            expected = quiet.Query<string>("select name from items order by id");

        using var metrics = new MetricCollector(Pool) { OnMeasured = _ => throw new InvalidOperationException("meter listener bug") };
        using var events = new EventCollector { OnEvent = _ => throw new InvalidOperationException("event listener bug") };
        using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.All;
            d.ChurnThreshold = 2;
            d.CaptureCommandText = true;
            d.Logger = new ThrowingLogger();
        });
        for (int i = 0; i < 3; i++)
            Assert.Equal(expected, db.Query<string>("select name from items order by id"));
        Assert.NotEmpty(db.GetPoolReport().Findings);
    }

    [Fact]
    public void Findings_go_to_the_logger_as_warnings_without_parameter_values()
    {
        var logger = new ListLogger();
        using Database db = Open(diagnostics: d =>
        {
            d.Detectors = FindingKind.Churn;
            d.ChurnThreshold = 2;
            d.Logger = logger;
        });
        db.Execute("select @v", new { v = "parameter-secret" });
        db.Execute("select @v", new { v = "parameter-secret" });

        (LogLevel level, string message) = Assert.Single(logger.Entries);
        Assert.Equal(LogLevel.Warning, level);
        Assert.StartsWith("Orseis Churn:", message, StringComparison.Ordinal);
        Assert.DoesNotContain("parameter-secret", message, StringComparison.Ordinal);
    }

    /// <summary>The bytes <paramref name="cycle"/> allocates on this thread in 1000 runs; <paramref name="telemetry"/> is disposed after.</summary>
    private static long AllocatedBy(PoolTelemetry telemetry, Action cycle)
    {
        try
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < 1000; i++)
                cycle();
            return GC.GetAllocatedBytesForCurrentThread() - before;
        }
        finally
        {
            telemetry.Dispose();
        }
    }

    [Fact]
    public void Nothing_allocates_on_the_hot_path_while_nobody_listens()
    {
        var telemetry = new PoolTelemetry("alloc-" + Pool, "sqlite", null, new DiagnosticsOptions());
        using var connection = new Microsoft.Data.Sqlite.SqliteConnection();
        Assert.False(OrseisActivitySource.Tracing); // so no span is started: no Activity, no clock read
        Assert.Equal(0, Cycle(telemetry, connection)); // no clock read either; also JITs the path
        Assert.Equal(0, AllocatedBy(telemetry, () => Cycle(telemetry, connection)));

        static long Cycle(PoolTelemetry t, System.Data.Common.DbConnection c)
        {
            // What every call, stream, grid reader and open asks before any tracing work.
            if (OrseisActivitySource.Tracing)
                throw new InvalidOperationException("An Orseis ActivitySource listener was left registered by another test.");
            t.EnterFlow();
            OpenStart open = t.OpenStarting(async: false);
            t.OpenCompleted(open);
            int hold = t.Acquired(c, "test");
            t.CommandCompleted(t.CommandStarting("select 1"), succeeded: true);
            t.Released(c, hold);
            t.ReuseWaitCompleted(t.ReuseWaitStarting());
            return open.Started;
        }
    }

    /// <summary>
    /// With the detectors on, the facts of each step go to the observers behind an interface: still not a byte per call.
    /// The starvation detector is left out (it names a call site, once, if the test machine's thread pool starves), and
    /// churn is never reached (a finding is made once, not per call).
    /// </summary>
    [Fact]
    public void Nothing_allocates_on_the_hot_path_with_the_detectors_on()
    {
        var options = new DiagnosticsOptions { Detectors = FindingKind.All & ~FindingKind.ThreadPoolStarvation, ChurnThreshold = int.MaxValue };
        var telemetry = new PoolTelemetry("alloc-detectors-" + Pool, "sqlite", 10, options);
        using var connection = new Microsoft.Data.Sqlite.SqliteConnection();
        for (int i = 0; i < 100; i++)
            Cycle(telemetry, connection); // JITs the path, allocates the flow and its streak's times once
        Assert.Equal(0, AllocatedBy(telemetry, () => Cycle(telemetry, connection)));

        static void Cycle(PoolTelemetry t, System.Data.Common.DbConnection c)
        {
            t.EnterFlow();
            OpenStart open = t.OpenStarting(async: true);
            int hold = t.Acquired(c, "test", openedAt: t.OpenCompleted(open, c), flow: open.Flow);
            t.CommandCompleted(t.CommandStarting("select 1"), succeeded: true);
            t.Released(c, hold);
        }
    }

    [Fact]
    public async Task Tracing_adds_nothing_to_whole_calls_while_nobody_listens_to_the_Orseis_source()
    {
        foreach (ExecutionMode mode in new[] { ExecutionMode.OpenPerCall, ExecutionMode.ReuseConnection })
        {
            using Database db = File.Open(mode);
            long quiet = Measure(db);

            // A tracer for other sources leaves the Orseis source unheard: not a byte more.
            using (ActivityListener other = Listen("Orseis.Tests.Other"))
            {
                Assert.False(OrseisActivitySource.Tracing);
                Assert.Equal(quiet, Measure(db));
            }

            // The measurement does see spans: listening to Orseis costs their allocations.
            using (ActivityListener orseis = Listen(OrseisActivitySource.Name))
            {
                Assert.True(OrseisActivitySource.Tracing);
                Assert.True(Measure(db) > quiet);
            }

            Assert.False(OrseisActivitySource.Tracing);
            Assert.Equal(quiet, Measure(db));
            await db.DisposeAsync();
        }

        // The least of three: a detector's once-a-window work, done on a calling thread, lands in one at most.
        static long Measure(Database db)
        {
            db.Scalar<long>("select 1");
            db.Stream<long>("select 1").Sum();
            long least = long.MaxValue;
            for (int round = 0; round < 3; round++)
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                for (int i = 0; i < 100; i++)
                {
                    db.Scalar<long>("select 1");
                    db.Stream<long>("select 1").Sum();
                }

                least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - before);
            }

            return least;
        }

        static ActivityListener Listen(string source)
        {
            var listener = new ActivityListener
            {
                ShouldListenTo = s => s.Name == source,
                Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            };
            ActivitySource.AddActivityListener(listener);
            return listener;
        }
    }

    [Fact]
    public void Whole_calls_allocate_no_more_with_diagnostics_configured_but_unused()
    {
        using Database plain = File.Open(ExecutionMode.ReuseConnection);
        using Database configured = File.Open(ExecutionMode.ReuseConnection, o => o.Diagnostics.CaptureCommandText = true);
        Assert.Equal(Measure(plain), Measure(configured));

        static long Measure(Database db)
        {
            db.Scalar<long>("select 1");
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < 100; i++)
                db.Scalar<long>("select 1");
            return GC.GetAllocatedBytesForCurrentThread() - before;
        }
    }

    [Theory]
    [InlineData(nameof(DiagnosticsOptions.HeldTooLongThreshold), "DiagnosticsOptions.HeldTooLongThreshold must be positive")]
    [InlineData(nameof(DiagnosticsOptions.ChurnThreshold), "DiagnosticsOptions.ChurnThreshold must be at least 2")]
    [InlineData(nameof(DiagnosticsOptions.ChurnGap), "DiagnosticsOptions.ChurnGap must be positive")]
    [InlineData(nameof(DiagnosticsOptions.SlowOpenFactor), "DiagnosticsOptions.SlowOpenFactor must be a finite number above 1")]
    [InlineData(nameof(DiagnosticsOptions.QueueWaitFloor), "DiagnosticsOptions.QueueWaitFloor must be zero or positive")]
    [InlineData(nameof(DiagnosticsOptions.ThreadPoolDelayThreshold), "DiagnosticsOptions.ThreadPoolDelayThreshold must be positive")]
    [InlineData(nameof(DiagnosticsOptions.FindingInterval), "DiagnosticsOptions.FindingInterval must be zero or positive")]
    [InlineData(nameof(DiagnosticsOptions.Detectors), "DiagnosticsOptions.Detectors has undefined flags")]
    public void Invalid_settings_fail_at_configuration_naming_the_setting(string setting, string message)
    {
        var d = new DiagnosticsOptions();
        switch (setting)
        {
            case nameof(DiagnosticsOptions.HeldTooLongThreshold): d.HeldTooLongThreshold = TimeSpan.Zero; break;
            case nameof(DiagnosticsOptions.ChurnThreshold): d.ChurnThreshold = 1; break;
            case nameof(DiagnosticsOptions.ChurnGap): d.ChurnGap = TimeSpan.FromSeconds(-1); break;
            case nameof(DiagnosticsOptions.SlowOpenFactor): d.SlowOpenFactor = double.NaN; break;
            case nameof(DiagnosticsOptions.QueueWaitFloor): d.QueueWaitFloor = TimeSpan.FromSeconds(-1); break;
            case nameof(DiagnosticsOptions.ThreadPoolDelayThreshold): d.ThreadPoolDelayThreshold = TimeSpan.Zero; break;
            case nameof(DiagnosticsOptions.FindingInterval): d.FindingInterval = TimeSpan.FromSeconds(-1); break;
            case nameof(DiagnosticsOptions.Detectors): d.Detectors = (FindingKind)((int)FindingKind.All + 1); break; // the next flag, undefined
        }

        ArgumentException error = Assert.Throws<ArgumentException>(() => File.Open(configure: o => o.Diagnostics = d));
        Assert.StartsWith(message, error.Message, StringComparison.Ordinal);
        Assert.Equal(setting, error.ParamName);
    }

    [Fact]
    public void The_report_reads_as_text_and_carries_the_counts()
    {
        using Database db = Open(diagnostics: d => d.Detectors = FindingKind.All);
        using (Session session = db.OpenSession())
        {
            session.Execute("select 1");
            session.Execute("select 1");
            PoolReport during = db.GetPoolReport();
            Assert.Equal(1, during.InUse);
            Assert.Equal(1, during.ActiveSessions);
        }

        db.Execute("select 1");
        PoolReport report = db.GetPoolReport();
        Assert.Equal(2, report.Opens);
        Assert.Equal(3, report.Commands);
        Assert.Equal(0, report.InUse);
        Assert.Equal(0, report.ActiveSessions);
        Assert.NotNull(report.UsualOpenTime);
        Assert.NotNull(report.MedianHoldTime);
        Assert.NotNull(report.RecommendedMaxPoolSize);
        string text = report.ToString();
        Assert.Contains($"Pool '{Pool}' (sqlite, OpenPerCall)", text, StringComparison.Ordinal);
        Assert.Contains("opens 2, commands 3", text, StringComparison.Ordinal);
        Assert.Contains("Microsoft.Data.Sqlite publishes no pool data", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Without_detectors_the_report_still_counts_but_does_not_time()
    {
        using Database db = Open();
        db.Execute("select 1");
        PoolReport report = db.GetPoolReport();
        Assert.Equal(1, report.Opens);
        Assert.Null(report.UsualOpenTime);
        Assert.Null(report.MedianHoldTime);
        Assert.Contains("not timed", report.ToString(), StringComparison.Ordinal);
    }

    private sealed class ThrowingLogger : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            throw new InvalidOperationException("logger bug");
    }

    private sealed class ListLogger : ILogger
    {
        public List<(LogLevel, string)> Entries { get; } = [];

        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            Entries.Add((logLevel, formatter(state, exception)));
    }
}
