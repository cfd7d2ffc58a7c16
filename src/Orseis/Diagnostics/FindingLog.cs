using System.Collections.Concurrent;
using System.Numerics;
using Microsoft.Extensions.Logging;

namespace Orseis.Diagnostics;

/// <summary>
/// Where every detector's findings go: counted, kept (the most recent <see cref="DiagnosticsOptions.FindingsKept"/>),
/// rate-limited per kind, and published on the meter, the EventSource, the logger and the span of the call that raised it
/// (<see cref="FindingSpans"/>). Never throws.
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

    /// <summary>
    /// Whether findings raised in a call's flow go on its span (<see cref="FindingSpans"/>): not for a replay of another
    /// process's facts, whose calls are not this process's spans.
    /// </summary>
    public bool AttachesToSpans { get; init; } = true;

    /// <summary>Reports a finding; a rate-limited one is dropped when the same kind was reported less than
    /// <see cref="DiagnosticsOptions.FindingInterval"/> ago. <paramref name="ofThisFlow"/>: raised in the flow of the call
    /// (or session) it is about, whose span (the current activity) it then goes on as an event; false for one raised
    /// elsewhere (the thread-pool probe, a report, a scan that found another caller's connection), which goes on no span.</summary>
    /// <returns>Whether it was reported.</returns>
    public bool Report(
        FindingKind kind, string message, Dictionary<string, double> figures, string? location, bool rateLimited, bool ofThisFlow = true)
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

        Publish(finding, ofThisFlow && AttachesToSpans);
        return true;
    }

    public IReadOnlyList<PoolFinding> Kept => [.. _kept];

    public IReadOnlyDictionary<FindingKind, long> Counts() =>
        Enum.GetValues<FindingKind>().Where(k => k is not FindingKind.None and not FindingKind.All)
            .ToDictionary(k => k, k => Interlocked.Read(ref _counts[BitOperations.TrailingZeroCount((int)k)]));

    private void Publish(PoolFinding f, bool onSpan)
    {
        try
        {
            if (OrseisMetrics.Findings.Enabled)
                OrseisMetrics.Findings.Add(1, [.. tags, new("orseis.finding.kind", f.Kind.ToString())]);
            if (OrseisEventSource.Log.IsEnabled())
                OrseisEventSource.Log.Finding(PoolName, f.Kind.ToString(), f.Message, f.FormatFigures(), f.Location ?? "");
            if (Options.Logger is { } logger && logger.IsEnabled(LogLevel.Warning))
                LogFinding(logger, f.Kind.ToString(), f.Message, f.HelpLink);
        }
#pragma warning disable CA1031 // a listener or logger that throws must never break a query
        catch (Exception)
#pragma warning restore CA1031
        {
        }

        if (!onSpan)
            return;
        try
        {
            FindingSpans.Attach(f); // apart: a logger that throws does not keep it off the span
        }
#pragma warning disable CA1031 // nor may a span's listener
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    /// <summary>
    /// A finding, as a warning with event id 1 ("PoolFinding"): the only event Orseis logs. It ends with the finding's
    /// <see cref="PoolFinding.HelpLink"/>, so a line in a log leads to its page in one click.
    /// </summary>
    [LoggerMessage(EventId = 1, EventName = "PoolFinding", Level = LogLevel.Warning, Message = "Orseis {Kind}: {Message} See {HelpLink}")]
    private static partial void LogFinding(ILogger logger, string kind, string message, Uri helpLink);
}
