using System.Text.Json.Serialization;

namespace Orseis.Trace.Report;

/// <summary>What <c>report</c> found in one trace; <c>--format json</c> writes exactly this.</summary>
internal sealed record TraceReport(
    string Trace,
    DateTime? Start,
    DateTime? End,
    double Seconds,
    bool DetectorFacts,
    IReadOnlyList<PoolReport> Pools,
    ThreadPoolReport ThreadPool,
    IReadOnlyList<ProviderMeterReport> ProviderMeters,
    [property: JsonIgnore] bool VerboseEvents = false);

/// <summary>
/// One pool: what the process found (its detectors' finding events), what the same detectors find replayed over the
/// recorded facts (null when the trace holds none), and the figures its events and meter carried.
/// </summary>
internal sealed record PoolReport(
    string Pool,
    string System,
    IReadOnlyList<string> Found,
    IReadOnlyList<FindingReport> Findings,
    ReplayReport? Replay,
    CountReport Opens,
    CountReport Commands,
    Percentiles? HeldMs,
    double? PeakInUse,
    double? MaxPoolSize,
    double? PeakWaiting,
    double Timeouts,
    double? PeakWaitP99Ms);

/// <summary>A finding event as the process raised it, with its figures.</summary>
internal sealed record FindingReport(DateTime Time, string Kind, string Message, IReadOnlyDictionary<string, string> Figures)
{
    /// <summary>
    /// The section of the findings reference that explains this kind and its cure; null for a kind this version does not know.
    /// </summary>
    public Uri? HelpLink => Orseis.Diagnostics.FindingLinks.For(Kind);
}

/// <summary>Opens or commands: how many, how often, how long (from the events when recorded, else from the meter).</summary>
internal sealed record CountReport(double Count, double PerSecond, Percentiles? Ms, string From);

/// <summary>Percentiles in ms, exact over the recorded events.</summary>
internal sealed record Percentiles(int Count, double P50, double P95, double P99, double Max);

/// <summary>The runtime's thread pool while recorded.</summary>
internal sealed record ThreadPoolReport(int Adjustments, int StarvationInjections, int? PeakThreads, double? PeakQueueLength);

/// <summary>A provider's own pool instrument (Npgsql, MySqlConnector), its peak while recorded.</summary>
internal sealed record ProviderMeterReport(string Meter, string Instrument, string Tags, double Peak);
