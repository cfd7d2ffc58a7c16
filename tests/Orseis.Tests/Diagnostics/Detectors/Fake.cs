using Microsoft.Extensions.Time.Testing;
using Orseis.Diagnostics;
using Orseis.Diagnostics.Detectors;

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

    private readonly List<(object Connection, long Started, int Hold)> _held = [];

    /// <summary>The pool's holds under way, as the pool's telemetry keeps them: one from each open told through <see cref="Opened"/> until its <see cref="Released"/>.</summary>
    public HolderTable Holders => field ??= new HolderTable(Time);

    /// <summary>Tells <paramref name="observer"/> of a completed open as the pool does: its hold starts in <see cref="Holders"/> first.</summary>
    public void Opened(PoolObserver observer, in CompletedOpen open)
    {
        var connection = new object();
        _held.Add((connection, open.At, Holders.Add(connection, "call", heldByDesign: false, where: null, open.At)));
        observer.OnOpenCompleted(open);
    }

    /// <summary>A hold that starts now without an open, as a scope's call on its parked connection does: in <see cref="Holders"/> until its <see cref="Released"/>.</summary>
    public long HoldWithoutOpen()
    {
        var connection = new object();
        _held.Add((connection, Now, Holders.Add(connection, "call", heldByDesign: false, where: null, Now)));
        return Now;
    }

    /// <summary>Tells <paramref name="observer"/> of a release as the pool does: the hold that started when it did leaves <see cref="Holders"/> first.</summary>
    public void Released(PoolObserver observer, in Release release)
    {
        long started = release.Holder.Started;
        int i = _held.FindIndex(h => h.Started == started);
        if (i >= 0)
        {
            Holders.TryRemove(_held[i].Connection, _held[i].Hold, out _);
            _held.RemoveAt(i);
        }

        observer.OnReleased(release);
    }

    /// <summary>An open that began now with <paramref name="demand"/> callers wanting a connection.</summary>
    public OpenStart Start(int demand = 1, int inUse = 0, bool async = true) => new(Now, inUse, demand, 0, 0, async);
}
