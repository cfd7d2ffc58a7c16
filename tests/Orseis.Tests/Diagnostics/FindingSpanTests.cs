using System.Diagnostics;
using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;
using Orseis.Tests.Diagnostics.Detectors;
using OpenTelemetry;
using OpenTelemetry.Trace;

namespace Orseis.Tests.Diagnostics;

/// <summary>
/// Findings as <c>orseis.finding</c> events on the span of the call that raised them, as an OpenTelemetry user receives
/// them (the SDK's in-memory exporter): on the call's span when the call's own open or release raised them, on the
/// application's span when no Orseis span is current, and on no span when raised by the thread-pool probe or a report.
/// </summary>
[Collection(DiagnosticsCollection.Name)]
public sealed class FindingSpanTests : DiagTest
{
    private static readonly ActivitySource Caller = new("Orseis.Tests.FindingCaller");

    private const string Page = "https://github.com/orseis/orseis/blob/main/docs/findings.md";

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_churn_finding_is_an_event_on_the_span_of_the_call_whose_open_made_it(bool async)
    {
        PoolFinding? finding = null;
        List<Activity> spans = await TraceAsync(async () =>
        {
            using Database db = Open(diagnostics: d =>
            {
                d.Detectors = FindingKind.Churn;
                d.ChurnThreshold = 3;
                d.ChurnGap = TimeSpan.FromMinutes(5);
            });
            for (int i = 0; i < 4; i++)
            {
                if (async)
                    await db.ExecuteAsync("select 1");
                else
                    db.Execute("select 1");
            }

            finding = Assert.Single(db.GetPoolReport().Findings);
        });

        List<Activity> calls = [.. spans.Where(s => s.OperationName != CallSpans.OpenName)];
        Assert.Equal(4, calls.Count);
        // The third open made the streak: its call, and only its call, carries the finding; the pool-wait span gives way to it.
        Assert.Equal([0, 0, 1, 0], calls.Select(c => c.Events.Count(e => e.Name == "orseis.finding")));
        Assert.All(spans.Where(s => s.OperationName == CallSpans.OpenName), open => Assert.Empty(open.Events));

        Dictionary<string, object?> tags = Tags(Assert.Single(calls[2].Events));
        Assert.Equal("Churn", tags["orseis.finding.kind"]);
        Assert.Equal(finding!.Message, tags["orseis.finding.message"]);
        Assert.Equal(Page + "#churn", tags["orseis.finding.help_link"]);
        Assert.Equal(Pool, tags["db.client.connection.pool.name"]);
        Assert.Equal(3.0, tags["orseis.finding.opens"]);
        // One tag per figure, each a double, as the finding measured it.
        Assert.Equal(finding.Figures.Count + 4, tags.Count);
        foreach ((string name, double value) in finding.Figures)
            Assert.Equal(value, Assert.IsType<double>(tags["orseis.finding." + name]));
    }

    [Fact]
    public async Task With_detectors_off_no_span_gets_an_event()
    {
        List<Activity> spans = await TraceAsync(() =>
        {
            using Database db = Open(diagnostics: d =>
            {
                d.Detectors = FindingKind.None;
                d.ChurnThreshold = 2;
                d.ChurnGap = TimeSpan.FromMinutes(5);
            });
            for (int i = 0; i < 4; i++)
                db.Execute("select 1");
            Assert.Empty(db.GetPoolReport().Findings);
            return Task.CompletedTask;
        });

        Assert.Equal(8, spans.Count); // four calls and their opens, traced
        Assert.All(spans, s => Assert.Empty(s.Events));
    }

    [Fact]
    public async Task A_pool_timeout_is_an_event_on_the_failed_call_with_its_link()
    {
        List<Activity> spans = await TraceAsync(() =>
        {
            (Database db, TestDataSource source) = OpenTest("Max Pool Size=1", d => d.Detectors = FindingKind.PoolTimeout);
            using (db)
            {
                using Session holder = db.OpenSession();
                source.Failure = () => new InvalidOperationException(
                    "Timeout expired.  The timeout period elapsed prior to obtaining a connection from the pool.");
                Assert.Throws<PoolExhaustedException>(() => db.Execute("select 1"));
            }

            return Task.CompletedTask;
        });

        Activity call = Assert.Single(spans, s => s.OperationName != CallSpans.OpenName && s.OperationName != CallSpans.SessionOpenName);
        Assert.Equal(ActivityStatusCode.Error, call.Status);
        Dictionary<string, object?> tags = Tags(Assert.Single(call.Events, e => e.Name == "orseis.finding"));
        Assert.Equal("PoolTimeout", tags["orseis.finding.kind"]);
        Assert.Equal(Page + "#pooltimeout", tags["orseis.finding.help_link"]);
        Assert.Equal(1.0, tags["orseis.finding.maxPoolSize"]);
        Assert.Equal(1.0, tags["orseis.finding.inUse"]);
        Assert.Contains("Max Pool Size is 1", (string)tags["orseis.finding.message"]!, StringComparison.Ordinal);
        // Neither the session's span nor any pool wait carries it.
        Assert.All(spans.Where(s => s != call), s => Assert.Empty(s.Events));
    }

    [Fact]
    public void With_no_Orseis_span_current_the_finding_goes_on_the_applications_span()
    {
        // The application traces its requests but not the Orseis source: its request span is the call's context.
        var exported = new List<Activity>();
        using (TracerProvider provider = Sdk.CreateTracerProviderBuilder().AddSource(Caller.Name).AddInMemoryExporter(exported).Build())
        {
            using Database db = Open(diagnostics: d =>
            {
                d.Detectors = FindingKind.Churn;
                d.ChurnThreshold = 2;
                d.ChurnGap = TimeSpan.FromMinutes(5);
            });
            using (Caller.StartActivity("GET /orders"))
            {
                db.Execute("select 1");
                db.Execute("select 1");
            }

            Assert.True(provider.ForceFlush(10_000));
        }

        Activity request = Assert.Single(exported);
        Assert.Equal("Churn", Tags(Assert.Single(request.Events)).GetValueOrDefault("orseis.finding.kind"));
    }

    [Fact]
    public async Task A_session_held_too_long_is_an_event_on_the_request_that_released_it_after_the_sessions_span_ended()
    {
        List<Activity> spans = await TraceAsync(() =>
        {
            using Database db = Open(diagnostics: d =>
            {
                d.Detectors = FindingKind.HeldTooLong;
                d.HeldTooLongThreshold = TimeSpan.FromMilliseconds(50);
            });
            using (Caller.StartActivity("GET /report"))
            {
                Session session = db.OpenSession();
                Thread.Sleep(150);
                session.Dispose(); // the release, in the request's flow, finds the hold overdue
            }

            PoolFinding finding = Assert.Single(db.GetPoolReport().Findings);
            Assert.Equal(0, finding.Figures["stillHeld"]);
            return Task.CompletedTask;
        }, includeCaller: true);

        Activity request = Assert.Single(spans, s => s.Source == Caller);
        Dictionary<string, object?> tags = Tags(Assert.Single(request.Events));
        Assert.Equal("HeldTooLong", tags["orseis.finding.kind"]);
        Assert.Equal(Page + "#heldtoolong", tags["orseis.finding.help_link"]);
        Assert.All(spans.Where(s => s != request), s => Assert.Empty(s.Events));
    }

    [Fact]
    public async Task A_finding_made_by_a_report_goes_on_no_span_even_with_one_current()
    {
        List<Activity> spans = await TraceAsync(() =>
        {
            using Database db = Open(diagnostics: d =>
            {
                d.Detectors = FindingKind.HeldTooLong;
                d.HeldTooLongThreshold = TimeSpan.FromMilliseconds(50);
            });
            using Session session = db.OpenSession(); // opened outside the span below: another flow's connection
            Thread.Sleep(150);
            using (Caller.StartActivity("GET /health"))
            {
                PoolFinding finding = Assert.Single(db.GetPoolReport().Findings); // the report's scan finds it still held
                Assert.Equal(FindingKind.HeldTooLong, finding.Kind);
                Assert.Equal(1, finding.Figures["stillHeld"]);
            }

            return Task.CompletedTask;
        }, includeCaller: true);

        Assert.Single(spans, s => s.Source == Caller);
        Assert.All(spans, s => Assert.Empty(s.Events));
    }

    [Fact]
    public async Task Starvation_seen_by_the_probe_goes_on_no_span_and_starvation_named_at_a_call_goes_on_that_calls_span()
    {
        List<Activity> spans = await TraceAsync(() =>
        {
            // The probe's episode without a call site: reported from the probe's thread, whatever span that thread
            // happens to see (a thread inherits the activity current where it was started).
            var fake = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
            var probed = new ThreadPoolStarvationDetector(fake.Log);
            using (Caller.StartActivity("unrelated"))
            {
                probed.OnProbe(Fake.Ms(600), stillWaiting: true, runtimeSaysStarved: true);
                fake.Time.Advance(Fake.Ms(600));
                probed.OnProbe(Fake.Ms(1200), stillWaiting: true, runtimeSaysStarved: true);
            }

            PoolFinding seen = Assert.Single(fake.Findings(FindingKind.ThreadPoolStarvation));
            Assert.Equal(-1, seen.Figures["syncCall"]); // no call site: the probe's own report

            // The same episode named at an Orseis call: that call met it, and it goes on the call's span.
            var named = new Fake(o => o.ThreadPoolDelayThreshold = Fake.Ms(500));
            var detector = new ThreadPoolStarvationDetector(named.Log);
            detector.OnProbe(Fake.Ms(600), stillWaiting: true, runtimeSaysStarved: true);
            using (Caller.StartActivity("the call"))
                detector.OnCallWhileStarving(async: false);
            Assert.Equal(1, Assert.Single(named.Findings(FindingKind.ThreadPoolStarvation)).Figures["syncCall"]);
            return Task.CompletedTask;
        }, includeCaller: true);

        Assert.Empty(Assert.Single(spans, s => s.OperationName == "unrelated").Events);
        Dictionary<string, object?> tags = Tags(Assert.Single(Assert.Single(spans, s => s.OperationName == "the call").Events));
        Assert.Equal("ThreadPoolStarvation", tags["orseis.finding.kind"]);
        Assert.Equal(Page + "#threadpoolstarvation", tags["orseis.finding.help_link"]);
        Assert.Equal("pool", tags["db.client.connection.pool.name"]);
    }

    [Fact]
    public async Task Pool_size_advice_made_by_a_report_goes_on_no_span()
    {
        PoolFinding? finding = null;
        List<Activity> spans = await TraceAsync(() =>
        {
            var fake = new Fake();
            var holds = new HoldTimes();
            for (int i = 0; i < 5000; i++)
            {
                long acquired = fake.Now;
                fake.Time.Advance(TimeSpan.FromSeconds(1.0 / 500));
                holds.Record(acquired, acquired + (long)(0.020 * fake.Time.TimestampFrequency), Fake.Ms(20));
            }

            using (Caller.StartActivity("GET /metrics"))
                Assert.True(new PoolSizeAdvisor(fake.Log, 10).Advise(holds, meanDemand: 24, queuedOpens: 3000, opens: 5000, report: true)!.Raise);
            finding = Assert.Single(fake.Findings(FindingKind.PoolSize));
            return Task.CompletedTask;
        }, includeCaller: true);

        Assert.Equal(new Uri(Page + "#poolsize"), finding!.HelpLink);
        Assert.Empty(Assert.Single(spans).Events);
    }

    [Fact]
    public void A_finding_goes_only_on_a_span_that_records()
    {
        // A span sampled out but still propagated (what a listener's PropagationData gives): current, not recording.
        var fake = new Fake();
        using Activity propagated = new Activity("propagated only") { IsAllDataRequested = false }.Start();
        Assert.Same(propagated, Activity.Current);
        Assert.True(fake.Log.Report(FindingKind.Churn, "churn", new Dictionary<string, double> { ["opens"] = 3 }, null, rateLimited: false));
        Assert.Empty(propagated.Events);
        Assert.Null(FindingSpans.SpanOf(propagated));
        propagated.IsAllDataRequested = true;
        Assert.Same(propagated, FindingSpans.SpanOf(propagated));
    }

    [Fact]
    public void A_replay_of_another_process_puts_no_finding_on_this_processs_span()
    {
        // A source of this test's own, made before the listener: a listener matching the static Caller failed when this test
        // was the class's first to touch it (run alone, or first in a batch): the listener's ShouldListenTo, run by
        // AddActivityListener, began Caller's static initialisation, whose ActivitySource constructor asked the listener
        // again while Caller was still null, so the source never got the listener and StartActivity returned null.
        using var source = new ActivitySource("Orseis.Tests.FindingReplay." + Guid.NewGuid().ToString("N"));
        using var listener = new ActivityListener
        {
            ShouldListenTo = s => ReferenceEquals(s, source),
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
        };
        ActivitySource.AddActivityListener(listener);
        var time = new Microsoft.Extensions.Time.Testing.FakeTimeProvider();
        var options = new DiagnosticsOptions { TimeProvider = time };
        var live = new FindingLog("pool", [], options, time);
        var replayed = new FindingLog("pool", [], options, time) { AttachesToSpans = false };
        using Activity span = source.StartActivity("span")!;
        Assert.NotNull(span);
        replayed.Report(FindingKind.LockConflicts, "replayed", [], null, rateLimited: false);
        Assert.Empty(span.Events);
        live.Report(FindingKind.LockConflicts, "live", [], null, rateLimited: false);
        Assert.Equal("live", Tags(Assert.Single(span.Events))["orseis.finding.message"]);
    }

    private static Dictionary<string, object?> Tags(ActivityEvent e) => e.Tags.ToDictionary(t => t.Key, t => t.Value);

    /// <summary>
    /// Runs <paramref name="work"/> under an OpenTelemetry TracerProvider for the Orseis source and this test's caller source;
    /// returns this pool's spans (and, with <paramref name="includeCaller"/>, the caller's) in the order they ended.
    /// </summary>
    private async Task<List<Activity>> TraceAsync(Func<Task> work, bool includeCaller = false)
    {
        var exported = new List<Activity>();
        using (TracerProvider provider = Sdk.CreateTracerProviderBuilder()
                   .AddSource(OrseisActivitySource.Name, Caller.Name).AddInMemoryExporter(exported).Build())
        {
            await work();
            Assert.True(provider.ForceFlush(10_000));
        }

        return
        [
            .. exported.Where(a => a.Source.Name == OrseisActivitySource.Name
                ? Equals(a.GetTagItem("db.client.connection.pool.name"), Pool)
                : includeCaller && a.Source == Caller),
        ];
    }
}
