namespace Orseis.Diagnostics;

/// <summary>The detectors of Orseis, and so the kinds of <see cref="PoolFinding"/>. Flags: combine them in
/// <see cref="DiagnosticsOptions.Detectors"/>.</summary>
[Flags]
public enum FindingKind
{
    /// <summary>No detector.</summary>
    None = 0,

    /// <summary>Opens back to back on one logical flow: reusing one connection would save the measured warm open cost.</summary>
    Churn = 1,

    /// <summary>Slow opens, by cause: a cold pool (slow new physical connections) or a slow server (warm opens that stay slow).</summary>
    SlowOpen = 2,

    /// <summary>Callers that queued for a connection: more wanted one at once than Max Pool Size allows.</summary>
    Saturation = 4,

    /// <summary>
    /// The provider gave up waiting for a pooled connection or making a new one (rethrown as
    /// <see cref="PoolExhaustedException"/>, saying whether connections were held or connects did not complete).
    /// </summary>
    PoolTimeout = 8,

    /// <summary>A connection or session out longer than <see cref="DiagnosticsOptions.HeldTooLongThreshold"/> (leak suspect).</summary>
    HeldTooLong = 16,

    /// <summary>The thread pool starved: queued work waited past a threshold while the runtime added threads for blocking.</summary>
    ThreadPoolStarvation = 32,

    /// <summary>Max Pool Size below what Little's law gives for the measured load, when callers queued.</summary>
    PoolSize = 64,

    /// <summary>
    /// The server ended statements with lock conflicts: deadlocks, lock wait timeouts, serialization failures, a busy
    /// database. Counted per kind, with the statement when <see cref="DiagnosticsOptions.CaptureCommandText"/> is on.
    /// </summary>
    LockConflicts = 128,

    /// <summary>
    /// The server refused or did not answer new connections (an outage, a restart, a wrong address): once per episode, with
    /// the provider's error, ended by the next open that succeeds with a new connection made (where the provider's connects
    /// are not seen, by the next open that succeeds).
    /// </summary>
    ServerUnavailable = 256,

    /// <summary>
    /// One statement run one call after another within one unit of work (a <see cref="ConnectionScope"/>, else the flow),
    /// with arguments, at least <see cref="DiagnosticsOptions.RepeatedStatementThreshold"/> times: an N+1 candidate (or,
    /// with the same arguments each time, a cache candidate). Argument values are compared by hash, never kept.
    /// </summary>
    RepeatedStatement = 512,

    /// <summary>
    /// Retries (<see cref="OrseisOptions.Retry"/>) no longer rare: within a minute, retries in three separate bursts, at least
    /// 0.1 % of the pool's commands. One KILL or one restart is one burst, and stays silent.
    /// </summary>
    FrequentRetries = 1024,

    /// <summary>Every detector.</summary>
    All = Churn | SlowOpen | Saturation | PoolTimeout | HeldTooLong | ThreadPoolStarvation | PoolSize | LockConflicts | ServerUnavailable |
          RepeatedStatement | FrequentRetries,
}
