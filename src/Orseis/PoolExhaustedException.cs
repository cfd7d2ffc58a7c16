namespace Orseis;

/// <summary>
/// The provider gave up waiting for a pooled connection (every connection was in use until its timeout). Carries a
/// snapshot of the pool at that moment; the provider's own exception is the inner exception.
/// </summary>
public sealed class PoolExhaustedException : OrseisException
{
    internal PoolExhaustedException(string message, Exception innerException, string poolName, int inUse, int waiting, int? maxPoolSize,
        TimeSpan? longestHeld, string? longestHolderLocation)
        : base(message, innerException)
    {
        PoolName = poolName;
        InUse = inUse;
        Waiting = waiting;
        MaxPoolSize = maxPoolSize;
        LongestHeld = longestHeld;
        LongestHolderLocation = longestHolderLocation;
    }

    /// <summary>The pool that timed out.</summary>
    public string PoolName { get; }

    /// <summary>Connections this database held when the open timed out.</summary>
    public int InUse { get; }

    /// <summary>Callers of this database inside Open (waiting) at that moment, this one included.</summary>
    public int Waiting { get; }

    /// <summary>Max Pool Size from the connection string (or the provider's default), if known.</summary>
    public int? MaxPoolSize { get; }

    /// <summary>How long the longest current holder had held its connection, if tracked (any detector on).</summary>
    public TimeSpan? LongestHeld { get; }

    /// <summary>Where the longest holder acquired its connection: its stack, captured when <see cref="Diagnostics.FindingKind.HeldTooLong"/> is on.</summary>
    public string? LongestHolderLocation { get; }
}
