namespace Orseis;

/// <summary>
/// A unit of work (a request, a message, a job) inside which a database's open-per-call calls share one connection while
/// they come back to back, from <see cref="Database.BeginScope"/>. A call that ends parks its connection in the scope;
/// the next call of the scope takes it instead of opening one (no reset round trip, no statement prepared again); a
/// scope quiet for <see cref="OrseisOptions.ScopeIdleWindow"/> gives the connection back to the pool, so no connection
/// idles across slow work that is not the database's. Disposing the scope gives it back at once.
/// </summary>
/// <remarks>
/// <para>
/// The scope is found by every call in the flow that began it, down through the methods it calls (it is held in an
/// <see cref="AsyncLocal{T}"/> set by <see cref="Database.BeginScope"/>, above those methods). Calls made at the same
/// time in one scope (<c>Task.WhenAll</c>) never share a connection: one takes the parked connection, the others open
/// their own. A stream holds its connection until it ends; calls under a <c>TransactionScope</c> run as without a scope.
/// </para>
/// <para>
/// Two calls that share the parked connection share its server state, as in a <see cref="Session"/>: temporary tables,
/// session variables, <c>SET</c> statements and an open <c>BEGIN</c> carry from one to the next. Nothing crosses from one
/// scope to another without the provider's reset. A <see cref="Database"/> in
/// <see cref="ExecutionMode.ReuseConnection"/> mode reuses its connection already: a scope changes nothing there, and a
/// scope begun inside another scope of the same database shares the outer one's connection.
/// </para>
/// </remarks>
/// <example>
/// <code>
/// await using (db.BeginScope())
/// {
///     var user = await repository.GetUserAsync(id);    // opens a connection, parks it
///     var orders = await repository.GetOrdersAsync(id); // takes the parked connection
/// }                                                   // back to the pool
/// </code>
/// </example>
public sealed class ConnectionScope : IDisposable, IAsyncDisposable
{
    // The flow's innermost scope. A call looks for it in a thread-static mirror the AsyncLocal keeps up to date through its
    // change callback (which runs whenever the value changes on a thread: set here, or a context switched in or out), not
    // in the AsyncLocal itself: reading an AsyncLocal (the thread's context, its map, the unboxing) cost a scope's call
    // about 130 instructions, the thread-static read a few. Begin and end read the mirror too (it is the AsyncLocal's
    // value on this thread, whatever the context), and the AsyncLocal holds the scope itself (no box to allocate).
    private static readonly AsyncLocal<ConnectionScope?> Ambient = new(static change => _threadInnermost = change.CurrentValue);
    [ThreadStatic]
    private static ConnectionScope? _threadInnermost;
    private static volatile bool _anyBegun;
    private readonly ScopeSlot? _slot;
    private int _disposed;

    private ConnectionScope(ScopeSlot? slot, ConnectionScope? outer)
    {
        _slot = slot;
        Outer = outer;
    }

    /// <summary>Calls of this scope served by its parked connection instead of an open from the pool.</summary>
    public long ReusedCalls => _slot?.Reuses ?? 0;

    private ConnectionScope? Outer { get; }

    /// <summary>
    /// Begins a scope for <paramref name="pool"/>'s database in the caller's flow. <paramref name="parks"/>: whether the
    /// database's calls open per call (in ReuseConnection mode there is nothing to park).
    /// </summary>
    internal static ConnectionScope Begin(PoolContext pool, bool parks, string owner)
    {
        ConnectionScope? outer = _threadInnermost;
        ScopeSlot? slot = parks && SlotFor(pool) is null ? new ScopeSlot(pool, owner) : null;
        var scope = new ConnectionScope(slot, outer);
        _anyBegun = true;
        Ambient.Value = scope;
        return scope;
    }

    /// <summary>The slot of the innermost live scope of <paramref name="pool"/>'s database in this flow; null outside one.</summary>
    internal static ScopeSlot? SlotFor(PoolContext pool)
    {
        if (!_anyBegun)
            return null;
        for (ConnectionScope? scope = _threadInnermost; scope is not null; scope = scope.Outer)
        {
            if (scope._slot is { } slot && ReferenceEquals(slot.Pool, pool))
                return slot.Ended ? null : slot;
        }

        return null;
    }

    /// <summary>Ends the scope: its parked connection goes back to the pool, and later calls of the flow open their own.</summary>
    public void Dispose() => Leave()?.End();

    /// <summary>Ends the scope: its parked connection goes back to the pool, and later calls of the flow open their own.</summary>
    /// <returns>A task that completes when the parked connection is back in the pool.</returns>
    public ValueTask DisposeAsync() => Leave() is { } slot ? slot.EndAsync() : default;

    /// <summary>The scope's first end: the flow's scope goes back to the outer one. Returns the slot to end, if any.</summary>
    private ScopeSlot? Leave()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return null;

        // Not in an async method: the flow's scope goes back to the outer one in the caller's own context.
        if (ReferenceEquals(_threadInnermost, this))
            Ambient.Value = Outer;
        return _slot;
    }
}
