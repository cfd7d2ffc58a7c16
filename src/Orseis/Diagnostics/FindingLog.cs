using System.Collections.Concurrent;
using System.Numerics;
using Microsoft.Extensions.Logging;

namespace Orseis.Diagnostics;

/// <summary>
/// Where every detector's findings go: counted, kept (the most recent <see cref="DiagnosticsOptions.FindingsKept"/>),
/// rate-limited per kind, and published on the meter, the EventSource and the logger. Never throws.
/// </summary>
internal sealed partial class FindingLog(
    string poolName, KeyValuePair<string, object?>[] tags, DiagnosticsOptions options, TimeProvider time)
{
    private readonly long[] _last = new long[16];
    private readonly long[] _counts = new long[16];
    private readonly ConcurrentQueue<PoolFinding> _kept = new();

    public string PoolName { get; } = poolName;

    public TimeProvider Time { get; } = time;

    public DiagnosticsOptions Options { get; } = options;

    /// <summary>Reports a finding; a rate-limited one is dropped when the same kind was reported less than
    /// <see cref="DiagnosticsOptions.FindingInterval"/> ago.</summary>
    /// <returns>Whether it was reported.</returns>
    public bool Report(FindingKind kind, string message, Dictionary<string, double> figures, string? location, bool rateLimited)
    {
        int index = BitOperations.TrailingZeroCount((int)kind);
        if (rateLimited)
        {
            long now = Time.GetTimestamp();
            long last = Volatile.Read(ref _last[index]);
            if (last != 0 && Time.GetElapsedTime(last, now) < Options.FindingInterval)
                return false;
            if (Interlocked.CompareExchange(ref _last[index], now, last) != last)
                return false;
        }

        var finding = new PoolFinding(kind, PoolName, message, figures, location, Time.GetUtcNow());
        Interlocked.Increment(ref _counts[index]);
        if (Options.FindingsKept > 0)
        {
            _kept.Enqueue(finding);
            while (_kept.Count > Options.FindingsKept && _kept.TryDequeue(out _))
            {
            }
        }

        Publish(finding);
        return true;
    }

    public IReadOnlyList<PoolFinding> Kept => [.. _kept];

    public IReadOnlyDictionary<FindingKind, long> Counts() =>
        Enum.GetValues<FindingKind>().Where(k => k is not FindingKind.None and not FindingKind.All)
            .ToDictionary(k => k, k => Interlocked.Read(ref _counts[BitOperations.TrailingZeroCount((int)k)]));

    private void Publish(PoolFinding f)
    {
        try
        {
            if (OrseisMetrics.Findings.Enabled)
                OrseisMetrics.Findings.Add(1, [.. tags, new("orseis.finding.kind", f.Kind.ToString())]);
            if (OrseisEventSource.Log.IsEnabled())
                OrseisEventSource.Log.Finding(PoolName, f.Kind.ToString(), f.Message, f.FormatFigures(), f.Location ?? "");
            if (Options.Logger is { } logger && logger.IsEnabled(LogLevel.Warning))
                LogFinding(logger, f.Kind.ToString(), f.Message);
        }
#pragma warning disable CA1031 // a listener or logger that throws must never break a query
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    /// <summary>A finding, as a warning with event id 1 ("PoolFinding"): the only event Orseis logs.</summary>
    [LoggerMessage(EventId = 1, EventName = "PoolFinding", Level = LogLevel.Warning, Message = "Orseis {Kind}: {Message}")]
    private static partial void LogFinding(ILogger logger, string kind, string message);
}
