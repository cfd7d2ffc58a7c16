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
    public bool Enabled { get => _enabled; set => _enabled = value; }

    /// <summary>The most times one call is run again after its first attempt. Default: 10; at least 1, at most 100.</summary>
    public int MaxRetries { get => _maxRetries; set => _maxRetries = value; }

    /// <summary>
    /// The time from a call's first failure after which no retry starts, and past which no delay before a retry ends: the
    /// call fails with its last error instead. The first attempt's own time does not count, so a call lasts at most its
    /// first attempt, the budget and the last attempt started within it; the caller's cancellation token bounds all of
    /// it. Default: 5 s; more than zero, at most 10 minutes.
    /// </summary>
    public TimeSpan Budget { get => _budget; set => _budget = value; }

    /// <summary>The delay before the first retry; each later one doubles it, up to <see cref="MaxDelay"/>. Default: 50 ms.</summary>
    public TimeSpan BaseDelay { get => _baseDelay; set => _baseDelay = value; }

    /// <summary>The longest delay between two attempts. Default: 1 s; at least <see cref="BaseDelay"/>.</summary>
    public TimeSpan MaxDelay { get => _maxDelay; set => _maxDelay = value; }

    // Validate reads the fields: every database validates these settings, and a property read there is a method the JIT
    // compiles at the process's start even when no one else reads it (issue 44).
    private bool _enabled;
    private int _maxRetries = 10;
    private TimeSpan _budget = TimeSpan.FromSeconds(5);
    private TimeSpan _baseDelay = TimeSpan.FromMilliseconds(50);
    private TimeSpan _maxDelay = TimeSpan.FromSeconds(1);

    /// <summary>Whether calls are retried; read with the settings' checks, without a property read.</summary>
    internal bool Validate()
    {
        if (_maxRetries is < 1 or > 100)
            throw Invalid(nameof(MaxRetries), "must be from 1 to 100, not ", _maxRetries);
        if (_budget <= TimeSpan.Zero || _budget > TimeSpan.FromMinutes(10))
            throw Invalid(nameof(Budget), "must be more than zero and at most 10 minutes, not ", _budget);
        if (_baseDelay < TimeSpan.Zero)
            throw Invalid(nameof(BaseDelay), "must be zero or positive, not ", _baseDelay);
        if (_maxDelay < _baseDelay || _maxDelay > TimeSpan.FromMinutes(1))
            throw MaxDelayInvalid(nameof(MaxDelay), _baseDelay, _maxDelay);

        return _enabled;
    }

    // The messages are made out of Validate, which the JIT compiles whole at every process's first database (issue 44).
    private static ArgumentException Invalid<T>(string setting, string problem, T value) =>
        new($"OrseisOptions.Retry.{setting} {problem}{value}.", setting);

    private static ArgumentException MaxDelayInvalid(string setting, TimeSpan baseDelay, TimeSpan maxDelay) =>
        new($"OrseisOptions.Retry.{setting} must be at least BaseDelay ({baseDelay}) and at most a minute, not {maxDelay}.", setting);
}
