using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Numerics;
using Microsoft.Extensions.Logging;

namespace Orseis.Diagnostics;

/// <summary>The detectors: each runs only when its <see cref="FindingKind"/> flag is on, from figures measured on the way.</summary>
internal sealed partial class PoolTelemetry
{
    private const int BaselineMinSamples = 5;
    private const double BaselineWeight = 0.2;

    private static readonly Action<ILogger, string, string, Exception?> LogFinding =
        LoggerMessage.Define<string, string>(LogLevel.Warning, new EventId(1, "PoolFinding"), "Orseis {Kind}: {Message}");

    private readonly long[] _lastFinding;
    private readonly ConcurrentQueue<PoolFinding> _findings = new();
    private readonly long[] _findingCounts = new long[8];
    private readonly Lock _statsLock = new();
    private long _timedOpens;
    private double _openMsTotal;
    private double _baselineMs;
    private int _baselineSamples;
    private long _timedHolds;
    private double _holdMsTotal;

    private static double Ms(TimeSpan t) => t.TotalMilliseconds;

    private void DetectOnOpenStart(bool async, long pending, long now)
    {
        if (Detecting(FindingKind.Churn) && _flow.Value is { } flow)
        {
            if (flow.Opens == 0 || Stopwatch.GetElapsedTime(flow.WindowStart, now) > _options.ChurnWindow)
            {
                flow.WindowStart = now;
                flow.Opens = 0;
                flow.Reported = false;
                flow.CallSite = CallSites.Caller();
            }

            flow.Opens++;
        }

        if (Detecting(FindingKind.Saturation) && MaxPoolSize is { } max && InUse >= _options.SaturationThreshold * max)
        {
            long inUse = InUse;
            Report(FindingKind.Saturation,
                $"Pool '{PoolName}' is near saturation: a caller entered Open while {inUse} of Max Pool Size {max} connection(s) were in use " +
                $"and {pending} caller(s) were inside Open. Callers now queue for connections; see the pool-size advice in the report, " +
                "hold connections for less time, or lower concurrency.",
                new Dictionary<string, double> { ["inUse"] = inUse, ["pending"] = pending, ["maxPoolSize"] = max }, null, rateLimited: true);
        }

        if (Detecting(FindingKind.ThreadPoolStarvation) && !async)
        {
            long queued = ThreadPool.PendingWorkItemCount;
            if (queued >= _options.ThreadPoolQueueThreshold)
            {
                Report(FindingKind.ThreadPoolStarvation,
                    $"A synchronous call on pool '{PoolName}' ran while {queued} work item(s) waited in the thread pool's queue " +
                    $"({ThreadPool.ThreadCount} thread(s)). Blocking I/O on thread-pool threads starves it: use the async API " +
                    "(QueryAsync, ExecuteAsync) on request paths.",
                    new Dictionary<string, double> { ["queuedWorkItems"] = queued, ["threads"] = ThreadPool.ThreadCount }, CallSites.Caller(), rateLimited: true);
            }
        }
    }

    private void DetectOnOpenCompleted(TimeSpan elapsed)
    {
        double ms = Ms(elapsed);
        double baseline;
        int samples;
        lock (_statsLock)
        {
            _timedOpens++;
            _openMsTotal += ms;
            baseline = _baselineMs;
            samples = _baselineSamples;
        }

        bool slow = samples >= BaselineMinSamples && ms > _options.SlowOpenFactor * baseline && elapsed > _options.SlowOpenFloor;
        if (!slow)
        {
            lock (_statsLock)
            {
                _baselineMs = _baselineSamples == 0 ? ms : (BaselineWeight * ms) + ((1 - BaselineWeight) * _baselineMs);
                _baselineSamples++;
            }
        }
        else if (Detecting(FindingKind.SlowOpen))
        {
            string physical = ProviderPool?.PhysicalConnects is { } creates
                ? $" The provider has made {creates} physical connection(s) so far."
                : "";
            Report(FindingKind.SlowOpen,
                $"An open on pool '{PoolName}' took {ms:0.###} ms, {ms / Math.Max(baseline, 1e-6):0.#}x this pool's usual {baseline:0.###} ms: " +
                $"a cold pool (new physical connections), a slow server or network, or callers queueing for the pool.{physical} " +
                "Keep connections warm (Min Pool Size) or look at server-side connection cost.",
                new Dictionary<string, double> { ["openMs"] = ms, ["baselineMs"] = baseline, ["factor"] = ms / Math.Max(baseline, 1e-6) },
                null, rateLimited: true);
        }

        if (Detecting(FindingKind.Churn) && _flow.Value is { Reported: false } flow && flow.Opens >= _options.ChurnThreshold)
        {
            flow.Reported = true;
            TimeSpan span = Stopwatch.GetElapsedTime(flow.WindowStart);
            double meanOpenMs = MeanOpenMs();
            double saveMs = (flow.Opens - 1) * meanOpenMs;
            Report(FindingKind.Churn,
                $"{flow.Opens} connection opens in {Ms(span):0.#} ms on one flow of pool '{PoolName}'" +
                (flow.CallSite is null ? "" : $" (from {flow.CallSite})") +
                $". Each open costs {meanOpenMs:0.###} ms here (measured), plus what the provider defers to the first command " +
                $"(session reset, re-prepared statements); one Session or ReuseConnection mode would save about {saveMs:0.#} ms of opens.",
                new Dictionary<string, double> { ["opens"] = flow.Opens, ["windowMs"] = Ms(span), ["meanOpenMs"] = meanOpenMs, ["savedMs"] = saveMs },
                flow.CallSite, rateLimited: true);
        }
    }

    private double MeanOpenMs()
    {
        lock (_statsLock)
            return _timedOpens == 0 ? 0 : _openMsTotal / _timedOpens;
    }

    private void RecordHold(TimeSpan held)
    {
        lock (_statsLock)
        {
            _timedHolds++;
            _holdMsTotal += Ms(held);
        }
    }

    private void DetectHeldTooLong()
    {
        TimeSpan threshold = _options.HeldTooLongThreshold;
        foreach (Holder holder in _holders.Values)
        {
            if (holder.Reported)
                continue;
            TimeSpan held = Stopwatch.GetElapsedTime(holder.Started);
            if (held > threshold)
                ReportHeldTooLong(holder, held, stillHeld: true);
        }
    }

    private void ReportHeldTooLong(Holder holder, TimeSpan held, bool stillHeld)
    {
        holder.Reported = true;
        Report(FindingKind.HeldTooLong,
            $"A connection of pool '{PoolName}' held by {holder.Owner} {(stillHeld ? "has been out" : "was out")} for {held.TotalSeconds:0.###} s, " +
            $"longer than DiagnosticsOptions.HeldTooLongThreshold ({_options.HeldTooLongThreshold.TotalSeconds:0.###} s): a leak suspect " +
            "(an undisposed Session or Stream) or long work done while holding a connection." +
            (holder.Stack is null ? "" : $" Acquired at:{Environment.NewLine}{holder.Stack}"),
            new Dictionary<string, double> { ["heldMs"] = Ms(held), ["thresholdMs"] = Ms(_options.HeldTooLongThreshold), ["stillHeld"] = stillHeld ? 1 : 0 },
            holder.Stack, rateLimited: false);
    }

    private void Report(FindingKind kind, string message, Dictionary<string, double> figures, string? location, bool rateLimited)
    {
        int index = BitOperations.TrailingZeroCount((int)kind);
        if (rateLimited)
        {
            long now = Stopwatch.GetTimestamp();
            long last = Volatile.Read(ref _lastFinding[index]);
            if (last != 0 && Stopwatch.GetElapsedTime(last, now) < _options.FindingInterval)
                return;
            if (Interlocked.CompareExchange(ref _lastFinding[index], now, last) != last)
                return;
        }

        var finding = new PoolFinding(kind, PoolName, message, figures, location);
        Interlocked.Increment(ref _findingCounts[index]);
        if (_options.FindingsKept > 0)
        {
            _findings.Enqueue(finding);
            while (_findings.Count > _options.FindingsKept && _findings.TryDequeue(out _))
            {
            }
        }

        Guard(static (self, f) =>
        {
            if (OrseisMetrics.Findings.Enabled)
                OrseisMetrics.Findings.Add(1, [.. self.Tags, new("orseis.finding.kind", f.Kind.ToString())]);
        }, finding);
        Guard(static (self, f) =>
        {
            if (EventsOn)
                OrseisEventSource.Log.Finding(self.PoolName, f.Kind.ToString(), f.Message, f.FormatFigures(), f.Location ?? "");
        }, finding);
        Guard(static (self, f) =>
        {
            if (self._options.Logger is { } logger && logger.IsEnabled(LogLevel.Warning))
                LogFinding(logger, f.Kind.ToString(), f.Message, null);
        }, finding);
    }

    /// <summary>Everything this recorder knows, at this moment; runs the pool-size and held-too-long detectors.</summary>
    public PoolReport CreateReport(ExecutionMode mode)
    {
        if (Detecting(FindingKind.HeldTooLong))
            DetectHeldTooLong();
        ProviderPool?.Refresh();
        TimeSpan elapsed = Stopwatch.GetElapsedTime(_created);
        long timedOpens, timedHolds;
        double openMs, holdMs, baseline;
        lock (_statsLock)
        {
            timedOpens = _timedOpens;
            timedHolds = _timedHolds;
            openMs = _openMsTotal;
            holdMs = _holdMsTotal;
            baseline = _baselineMs;
        }

        // Little's law: the mean number of connections in use is the arrival rate times the mean hold time, which is
        // the total hold time over the elapsed time. Size for the peak seen and 50% headroom over the mean.
        double? meanInUse = timedHolds > 0 ? holdMs / Math.Max(elapsed.TotalMilliseconds, 1) : null;
        double? opensPerSecond = elapsed.TotalSeconds > 0 ? Opens / elapsed.TotalSeconds : null;
        long peakDemand = Interlocked.Read(ref _peakInUse) + Math.Max(0, Interlocked.Read(ref _peakPending) - 1);
        int? recommended = meanInUse is { } l ? (int)Math.Max(1, Math.Max(Math.Ceiling(l * 1.5), Interlocked.Read(ref _peakInUse))) : null;
        if (Detecting(FindingKind.PoolSize) && recommended is { } rec && MaxPoolSize is { } max)
        {
            var figures = new Dictionary<string, double>
            {
                ["maxPoolSize"] = max,
                ["recommended"] = rec,
                ["meanInUse"] = meanInUse ?? 0,
                ["peakDemand"] = peakDemand,
                ["opensPerSecond"] = opensPerSecond ?? 0,
                ["meanHoldMs"] = timedHolds == 0 ? 0 : holdMs / timedHolds,
            };
            string law = string.Create(CultureInfo.InvariantCulture,
                $"{opensPerSecond:0.##} opens/s x {(timedHolds == 0 ? 0 : holdMs / timedHolds):0.###} ms held = {meanInUse:0.###} connection(s) in use on average, peak demand {peakDemand}");
            if (peakDemand > max)
            {
                Report(FindingKind.PoolSize,
                    $"Max Pool Size {max} of pool '{PoolName}' is below the peak demand: {law}. Callers queued for connections; " +
                    $"raise Max Pool Size towards {Math.Max(rec, peakDemand)} if the server can take it, or hold connections for less time.",
                    figures, null, rateLimited: true);
            }
            else if (max > _options.OversizeFactor * Math.Max(rec, peakDemand))
            {
                Report(FindingKind.PoolSize,
                    $"Max Pool Size {max} of pool '{PoolName}' is far above what the load needs: {law}; about {rec} would do. " +
                    "A smaller pool protects the server when the load spikes.",
                    figures, null, rateLimited: true);
            }
        }

        (TimeSpan? longest, string? where) = LongestHolder();
        long[] counts = new long[_findingCounts.Length];
        for (int i = 0; i < counts.Length; i++)
            counts[i] = Interlocked.Read(ref _findingCounts[i]);
        return new PoolReport
        {
            PoolName = PoolName,
            SystemName = SystemName,
            Mode = mode,
            Elapsed = elapsed,
            Detectors = _detectors,
            InUse = (int)InUse,
            Pending = (int)Pending,
            PeakInUse = (int)Interlocked.Read(ref _peakInUse),
            PeakPending = (int)Interlocked.Read(ref _peakPending),
            MaxPoolSize = MaxPoolSize,
            Opens = Opens,
            Commands = Commands,
            Timeouts = Interlocked.Read(ref _timeouts),
            ReuseWaits = Interlocked.Read(ref _reuseWaits),
            ActiveSessions = (int)ActiveSessions,
            OpensPerSecond = opensPerSecond,
            MeanOpenTime = timedOpens == 0 ? null : TimeSpan.FromMilliseconds(openMs / timedOpens),
            UsualOpenTime = timedOpens == 0 ? null : TimeSpan.FromMilliseconds(baseline),
            MeanHoldTime = timedHolds == 0 ? null : TimeSpan.FromMilliseconds(holdMs / timedHolds),
            MeanInUse = meanInUse,
            RecommendedMaxPoolSize = recommended,
            LongestHeld = longest,
            LongestHolderLocation = where,
            ProviderIdle = ProviderPool?.Idle,
            ProviderUsed = ProviderPool?.Used,
            ProviderPhysicalConnects = ProviderPool?.PhysicalConnects,
            ProviderVisibility = ProviderPoolStats.Visibility(SystemName),
            FindingCounts = Enum.GetValues<FindingKind>().Where(k => k is not FindingKind.None and not FindingKind.All)
                .ToDictionary(k => k, k => counts[BitOperations.TrailingZeroCount((int)k)]),
            Findings = [.. _findings],
        };
    }
}
