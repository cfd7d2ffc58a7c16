namespace Orseis.Diagnostics;

/// <summary>The detectors of Orseis, and so the kinds of <see cref="PoolFinding"/>. Flags: combine them in <see cref="DiagnosticsOptions.Detectors"/>.</summary>
[Flags]
public enum FindingKind
{
    /// <summary>No detector.</summary>
    None = 0,

    /// <summary>Many opens in a row on one logical flow: reusing one connection would save the measured open cost.</summary>
    Churn = 1,

    /// <summary>An open far slower than this pool's usual (a cold pool, a new physical connection, a slow server).</summary>
    SlowOpen = 2,

    /// <summary>Callers entering Open while the pool is nearly fully in use.</summary>
    Saturation = 4,

    /// <summary>The provider gave up waiting for a pooled connection (rethrown as <see cref="PoolExhaustedException"/>).</summary>
    PoolTimeout = 8,

    /// <summary>A connection or session out longer than <see cref="DiagnosticsOptions.HeldTooLongThreshold"/> (leak suspect).</summary>
    HeldTooLong = 16,

    /// <summary>Synchronous calls while the thread pool's queue is long (sync-over-I/O starving the thread pool).</summary>
    ThreadPoolStarvation = 32,

    /// <summary>Max Pool Size far from what Little's law gives for the measured load.</summary>
    PoolSize = 64,

    /// <summary>Every detector.</summary>
    All = Churn | SlowOpen | Saturation | PoolTimeout | HeldTooLong | ThreadPoolStarvation | PoolSize,
}
