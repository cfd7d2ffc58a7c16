using System.Diagnostics.Metrics;
using System.Diagnostics.Tracing;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using Orseis.Benchmarks.Infrastructure;
using Orseis.Diagnostics;

namespace Orseis.Benchmarks.Overhead;

/// <summary>
/// What Orseis' pool diagnostics cost on the hot path, side by side: the same sequential call with
/// <c>Detectors = None</c> (the baseline of its category) and with <c>Detectors = All</c>, on a session and opening a
/// pooled connection per call, each with nobody listening and with a MeterListener and an EventListener receiving
/// every Orseis measurement and event. The Ratio column is All / None. Each case runs in its own processes, so
/// listeners never leak between cases. Issue 11's targets: All within 2 % of None (time and allocations), and within
/// 5 % with the listeners attached.
/// </summary>
[Config(typeof(OverheadConfig))]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory, BenchmarkLogicalGroupRule.ByParams)]
[CategoriesColumn]
public class DiagnosticsOverhead : ProviderBenchmark
{
    private const string OnSession = "Session";
    private const string PerCall = "OpenPerCall";
    private BenchDatabase? _database;
    private Database? _perCall;
    private Session? _session;
    private MeterListener? _meters;
    private OrseisEvents? _events;

    /// <summary>Whether an in-process MeterListener and EventListener consume every Orseis instrument and event.</summary>
    [Params(false, true)]
    public bool Listeners { get; set; }

    /// <summary>Creates the database without detectors (the default) and, when asked, the in-process listeners.</summary>
    [GlobalSetup(Targets = [nameof(SessionNone), nameof(OpenPerCallNone)])]
    public void SetupNone() => Setup(FindingKind.None);

    /// <summary>Creates the database with every detector and, when asked, the in-process listeners.</summary>
    [GlobalSetup(Targets = [nameof(SessionAll), nameof(OpenPerCallAll)])]
    public void SetupAll() => Setup(FindingKind.All);

    /// <summary>Disposes everything.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _session?.Dispose();
        _perCall?.Dispose();
        _meters?.Dispose();
        _events?.Dispose();
        _database?.Dispose();
    }

    /// <summary>One scalar on a kept connection (a session), no detectors.</summary>
    [Benchmark(Baseline = true)]
    [BenchmarkCategory(OnSession)]
    public long SessionNone() => _session!.Scalar<long>("select 1");

    /// <summary>One scalar on a kept connection (a session), every detector.</summary>
    [Benchmark]
    [BenchmarkCategory(OnSession)]
    public long SessionAll() => _session!.Scalar<long>("select 1");

    /// <summary>One scalar that opens and disposes a pooled connection, no detectors.</summary>
    [Benchmark(Baseline = true)]
    [BenchmarkCategory(PerCall)]
    public long OpenPerCallNone() => _perCall!.Scalar<long>("select 1");

    /// <summary>One scalar that opens and disposes a pooled connection, every detector.</summary>
    [Benchmark]
    [BenchmarkCategory(PerCall)]
    public long OpenPerCallAll() => _perCall!.Scalar<long>("select 1");

    private void Setup(FindingKind detectors)
    {
        _database = BenchDatabase.Create();
        var options = new OrseisOptions();
        options.Diagnostics.Detectors = detectors;
        if (Listeners)
        {
            _meters = new MeterListener
            {
                InstrumentPublished = (instrument, listener) =>
                {
                    if (instrument.Meter.Name == "Orseis")
                        listener.EnableMeasurementEvents(instrument);
                },
            };
            _meters.SetMeasurementEventCallback<long>(static (_, _, _, _) => { });
            _meters.SetMeasurementEventCallback<int>(static (_, _, _, _) => { });
            _meters.SetMeasurementEventCallback<double>(static (_, _, _, _) => { });
            _meters.Start();
            _events = new OrseisEvents();
        }

        _perCall = new Database(_database.Factory, _database.ConnectionString, options);
        _session = _perCall.OpenSession();
    }

    private sealed class OrseisEvents : EventListener
    {
        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == "Orseis")
                EnableEvents(eventSource, EventLevel.Verbose);
        }

        protected override void OnEventWritten(EventWrittenEventArgs eventData)
        {
        }
    }
}
