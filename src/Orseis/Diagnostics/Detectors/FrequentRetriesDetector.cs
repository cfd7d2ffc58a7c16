using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// Tells when retries (<see cref="OrseisOptions.Retry"/>) stop being rare: told only from the retry path (a call that is
/// never retried never reaches it), it counts a pool's retries in a window of <see cref="Window"/> from the first, and the
/// bursts they came in (retries less than <see cref="BurstGap"/> apart are one burst: a KILL of every connection, or a
/// restart, is one). It reports once <see cref="Bursts"/> bursts came within the window and the retries were at least
/// <see cref="Share"/> of the pool's commands since the window began; one KILL or one restart stays silent.
/// </summary>
internal sealed class FrequentRetriesDetector(FindingLog log, TimeProvider time)
{
    /// <summary>How long a window of retries lasts from its first.</summary>
    public static readonly TimeSpan Window = TimeSpan.FromMinutes(1);

    /// <summary>Retries closer together than this are one burst.</summary>
    public static readonly TimeSpan BurstGap = TimeSpan.FromSeconds(1);

    /// <summary>The bursts within one window that make retries frequent.</summary>
    public const int Bursts = 3;

    /// <summary>The least share of the window's commands retried for a finding.</summary>
    public const double Share = 0.001;

    private readonly Lock _lock = new();
    private readonly Dictionary<string, long> _byReason = new(StringComparer.Ordinal);
    private long _windowStart;
    private long _commandsAtStart;
    private long _lastRetry;
    private long _retries;
    private int _bursts;

    /// <summary>
    /// A call of the pool was run again for <paramref name="reason"/>; <paramref name="commands"/> is the pool's command count.
    /// </summary>
    public void OnRetry(string reason, long commands)
    {
        string message;
        Dictionary<string, double> figures;
        lock (_lock)
        {
            long now = time.GetTimestamp();
            if (_windowStart == 0 || time.GetElapsedTime(_windowStart, now) > Window)
            {
                _windowStart = now;
                _commandsAtStart = commands;
                _lastRetry = 0;
                _retries = 0;
                _bursts = 0;
                _byReason.Clear();
            }

            if (_lastRetry == 0 || time.GetElapsedTime(_lastRetry, now) >= BurstGap)
                _bursts++;
            _lastRetry = now;
            _retries++;
            _byReason[reason] = _byReason.GetValueOrDefault(reason) + 1;
            long calls = Math.Max(commands - _commandsAtStart, _retries);
            double share = (double)_retries / calls;
            if (_bursts < Bursts || share < Share)
                return;

            double seconds = time.GetElapsedTime(_windowStart, now).TotalSeconds;
            string reasons = string.Join(", ", _byReason.OrderByDescending(r => r.Value).Select(r => $"{r.Key} {r.Value}"));
            message = string.Create(CultureInfo.InvariantCulture,
                $"Pool '{log.PoolName}': {_retries} retries in {seconds:0.#} s ({share * 100:0.#} % of its {calls} commands), " +
                $"in {_bursts} separate bursts ({reasons}). ") +
                "Retries hide these failures from your users, not their cause: the server or " +
                "something between (a proxy's or firewall's idle timeout, a failover loop, a watchdog that kills sessions) keeps " +
                "ending connections or refusing new ones. Find what ends them (the server's log, its wait_timeout or " +
                "idle_session_timeout against the pool's idle lifetime) before the retry budget runs out.";
            figures = new Dictionary<string, double>
            {
                ["retries"] = _retries,
                ["commands"] = calls,
                ["share"] = share,
                ["bursts"] = _bursts,
                ["seconds"] = seconds,
            };
        }

        log.Report(FindingKind.FrequentRetries, message, figures, location: null, rateLimited: true);
    }
}
