using System.Diagnostics.Metrics;
using System.Diagnostics.Tracing;
using BenchmarkDotNet.Attributes;
using Orseis.Benchmarks.Infrastructure;
using Orseis.Diagnostics;

namespace Orseis.Benchmarks.Overhead;

/// <summary>
/// What Orseis' pool diagnostics cost on the hot path, side by side: the same sequential call with
/// <c>Detectors = None</c> and with <c>Detectors = All</c>, each with nobody listening and with a MeterListener and an
/// EventListener receiving every Orseis measurement and event. Each case runs in its own process, so listeners never
/// leak between cases. Issue 11's targets: All within 2 % of None (time and allocations), and within 5 % with the
/// listeners attached.
/// </summary>
[Config(typeof(OverheadConfig))]
public class DiagnosticsOverhead : ProviderBenchmark
{
    private BenchDatabase? _database;
    private Database? _perCall;
    private Session? _session;
    private MeterListener? _meters;
    private OrseisEvents? _events;

    /// <summary>The detectors: None (the default) or All.</summary>
    [Params("None", "All")]
    public string Detectors { get; set; } = "None";

    /// <summary>Whether an in-process MeterListener and EventListener consume every Orseis instrument and event.</summary>
    [Params(false, true)]
    public bool Listeners { get; set; }

    /// <summary>Creates the database with the chosen detectors and, when asked, the in-process listeners.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _database = BenchDatabase.Create();
        var options = new OrseisOptions();
        options.Diagnostics.Detectors = Enum.Parse<FindingKind>(Detectors);
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

    /// <summary>One scalar on a kept connection (a session).</summary>
    [Benchmark(Baseline = true)]
    public long SessionScalar() => _session!.Scalar<long>("select 1");

    /// <summary>One scalar that opens and disposes a pooled connection.</summary>
    [Benchmark]
    public long OpenPerCallScalar() => _perCall!.Scalar<long>("select 1");

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
