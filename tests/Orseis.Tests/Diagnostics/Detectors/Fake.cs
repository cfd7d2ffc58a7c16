using Microsoft.Extensions.Time.Testing;
using Orseis.Diagnostics;

namespace Orseis.Tests.Diagnostics.Detectors;

/// <summary>A finding log on a fake clock: detector tests move time by hand and never sleep.</summary>
internal sealed class Fake
{
    public Fake(Action<DiagnosticsOptions>? configure = null)
    {
        Options = new DiagnosticsOptions { Detectors = FindingKind.All, FindingInterval = TimeSpan.FromHours(1), TimeProvider = Time };
        configure?.Invoke(Options);
        Log = new FindingLog("pool", [], Options, Time);
    }

    public FakeTimeProvider Time { get; } = new(DateTimeOffset.Parse("2026-01-01T00:00:00Z", System.Globalization.CultureInfo.InvariantCulture));

    public DiagnosticsOptions Options { get; }

    public FindingLog Log { get; }

    public IEnumerable<PoolFinding> Findings(FindingKind kind) => Log.Kept.Where(f => f.Kind == kind);

    public long Now => Time.GetTimestamp();

    public static TimeSpan Ms(double ms) => TimeSpan.FromMilliseconds(ms);

    /// <summary>An open that began now with <paramref name="demand"/> callers wanting a connection.</summary>
    public OpenStart Start(int demand = 1, int inUse = 0, bool async = true) => new(Now, inUse, demand, 0, 0, async);
}
