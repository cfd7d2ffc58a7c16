namespace Orseis;

/// <summary>
/// No connection could be had in time: the provider timed out waiting for a pooled connection, or making a new one.
/// The message says which it was: every connection held by callers (the pool is exhausted), or free slots taken by
/// connects that did not complete (the server is not answering). Carries a snapshot of the pool at that moment; the
/// provider's own exception is the inner exception.
/// </summary>
public sealed class PoolExhaustedException : OrseisException
{
    internal PoolExhaustedException(string message, Exception innerException, string poolName, int inUse, int waiting, int? maxPoolSize,
        TimeSpan? longestHeld, string? longestHolderLocation, int connecting, int parked)
        : base(message, innerException)
    {
        Parked = parked;
        Connecting = connecting;
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

    /// <summary>
    /// Connections parked in <see cref="ConnectionScope"/>s at that moment: taken from the pool between a scope's calls
    /// (not counted in <see cref="InUse"/>), given back when the scope ends or sits idle for
    /// <see cref="OrseisOptions.ScopeIdleWindow"/>.
    /// </summary>
    public int Parked { get; }

    /// <summary>Callers of this database inside Open (waiting) at that moment, this one included.</summary>
    public int Waiting { get; }

    /// <summary>
    /// About how many opens were making new physical connections at that moment (Max Pool Size less the connections
    /// held, parked and idle, at most the callers inside Open): when it is not 0, the timeout came from connects that did not
    /// complete, not from held connections.
    /// </summary>
    public int Connecting { get; }

    /// <summary>Max Pool Size from the connection string (or the provider's default), if known.</summary>
    public int? MaxPoolSize { get; }

    /// <summary>How long the longest current holder had held its connection, if tracked (any detector on).</summary>
    public TimeSpan? LongestHeld { get; }

    /// <summary>Where the longest holder acquired its connection: its stack, captured when
    /// <see cref="Diagnostics.FindingKind.HeldTooLong"/> is on.</summary>
    public string? LongestHolderLocation { get; }
}
