using System.Diagnostics.Metrics;
using System.Diagnostics.Tracing;
using BenchmarkDotNet.Attributes;
using Orseis.Benchmarks.Costs;
using Orseis.Benchmarks.Infrastructure;
using Orseis.Diagnostics;

namespace Orseis.Benchmarks.Overhead;

/// <summary>
/// What Orseis' pool diagnostics cost on the hot path: the same call with diagnostics off (nobody listening, the
/// default), with every detector but the stack-capturing one, with every detector on, and with every detector on while a MeterListener and an EventListener receive
/// every Orseis measurement and event. Each case runs in its own process, so listeners never leak between cases.
/// </summary>
[Config(typeof(CostConfig))]
public class DiagnosticsOverhead : ProviderBenchmark
{
    private BenchDatabase? _database;
    private Database? _perCall;
    private Session? _session;
    private MeterListener? _meters;
    private OrseisEvents? _events;

    /// <summary>
    /// off: nobody listens; no-stacks: every detector but HeldTooLong (the one that captures a stack per acquire);
    /// detectors: every detector on; listeners: every detector on and every instrument and event consumed.
    /// </summary>
    [Params("off", "no-stacks", "detectors", "listeners")]
    public string Diagnostics { get; set; } = "off";

    /// <summary>Creates the database with the chosen diagnostics and, for "listeners", the in-process listeners.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _database = BenchDatabase.Create();
        var options = new OrseisOptions();
        if (Diagnostics != "off")
            options.Diagnostics.Detectors = Diagnostics == "no-stacks" ? FindingKind.All & ~FindingKind.HeldTooLong : FindingKind.All;
        if (Diagnostics == "listeners")
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
