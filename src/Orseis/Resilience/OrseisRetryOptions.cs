namespace Orseis;

/// <summary>
/// Opt-in retries of what is safe to run again (<see cref="OrseisOptions.Retry"/>): an open that failed to connect, and a
/// buffered read whose connection broke outside a transaction (<see cref="OrseisRetry.IsSafeToRetry"/> says which
/// failures those are). Never a write, a call inside a transaction, or a stream. Off by default.
/// </summary>
/// <remarks>
/// Each retry waits a delay that doubles from <see cref="BaseDelay"/> up to <see cref="MaxDelay"/>, with jitter, runs
/// on Polly's retry strategy, is counted on the <c>Orseis</c> meter (<c>orseis.retries</c>, tagged
/// <c>orseis.retry.reason</c>) and shows as an <c>orseis.retry</c> event on the call's span. The caller's cancellation
/// token stops the waits. The settings are read when the database is created.
/// </remarks>
public sealed class OrseisRetryOptions
{
    /// <summary>Whether calls are retried at all. Default: <see langword="false"/>.</summary>
    public bool Enabled { get; set; }

    /// <summary>The most times one call is run again after its first attempt. Default: 10; at least 1, at most 100.</summary>
    public int MaxRetries { get; set; } = 10;

    /// <summary>
    /// The time from a call's first failure after which no retry starts, and past which no delay before a retry ends: the
    /// call fails with its last error instead. The first attempt's own time does not count, so a call lasts at most its
    /// first attempt, the budget and the last attempt started within it; the caller's cancellation token bounds all of
    /// it. Default: 5 s; more than zero, at most 10 minutes.
    /// </summary>
    public TimeSpan Budget { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>The delay before the first retry; each later one doubles it, up to <see cref="MaxDelay"/>. Default: 50 ms.</summary>
    public TimeSpan BaseDelay { get; set; } = TimeSpan.FromMilliseconds(50);

    /// <summary>The longest delay between two attempts. Default: 1 s; at least <see cref="BaseDelay"/>.</summary>
    public TimeSpan MaxDelay { get; set; } = TimeSpan.FromSeconds(1);

    internal void Validate()
    {
        if (MaxRetries is < 1 or > 100)
            throw new ArgumentException($"OrseisOptions.Retry.MaxRetries must be from 1 to 100, not {MaxRetries}.", nameof(MaxRetries));
        if (Budget <= TimeSpan.Zero || Budget > TimeSpan.FromMinutes(10))
        {
            throw new ArgumentException(
                $"OrseisOptions.Retry.Budget must be more than zero and at most 10 minutes, not {Budget}.", nameof(Budget));
        }
        if (BaseDelay < TimeSpan.Zero)
            throw new ArgumentException($"OrseisOptions.Retry.BaseDelay must be zero or positive, not {BaseDelay}.", nameof(BaseDelay));
        if (MaxDelay < BaseDelay || MaxDelay > TimeSpan.FromMinutes(1))
        {
            throw new ArgumentException(
                $"OrseisOptions.Retry.MaxDelay must be at least BaseDelay ({BaseDelay}) and at most a minute, not {MaxDelay}.",
                nameof(MaxDelay));
        }
    }
}
