using System.Data.Common;
using System.Runtime.CompilerServices;

namespace Orseis.Execution.Modes;

/// <summary>
/// <see cref="ExecutionMode.OpenPerCall"/>: every call opens a pooled connection and disposes it; inside a
/// <see cref="ConnectionScope"/>, back-to-back calls share the connection the scope parks (see <see cref="ScopeSlot"/>).
/// </summary>
/// <param name="pool">The pool's context.</param>
/// <param name="poolName">The pool's name, for messages.</param>
internal sealed partial class OpenPerCallSource(PoolContext pool, string poolName) : ConnectionSource(pool, typeof(Database))
{
    private readonly string _callOwner = $"a call on '{poolName}' (OpenPerCall mode)";
    private readonly string _streamOwner = $"a stream on '{poolName}' (OpenPerCall mode)";

    public override bool OpensPerCall => true;

    // A stream holds its connection across the caller's own code, like a session: the held-too-long detector watches it.
    protected override ValueTask<Lease> AcquireCoreAsync(
        System.Transactions.Transaction? ambient, bool async, bool forStream, Diagnostics.Detectors.FlowState? flow,
        CancellationToken cancellationToken)
    {
        if (ambient is null)
            return Acquire(async, forStream, flow, cancellationToken);
        return AmbientTransactions.StateOf(ambient) is { } state
            ? AcquireInFailedScopeAsync(ambient, state, async, forStream, cancellationToken)
            : OpenInScopeAsync(ambient, async, forStream, cancellationToken);
    }

    // Not inlined: the pool's open inlined here (its async state machine on the stack) gave Acquire a frame of 536 bytes,
    // zeroed on every call, a scope's call that takes the parked connection too (about 60 instructions).
    [MethodImpl(MethodImplOptions.NoInlining)]
    private ValueTask<Lease> Open(
        bool async, bool forStream, CancellationToken cancellationToken, Diagnostics.Detectors.FlowState? flow = null) =>
        Pool.OpenAsync(
            async, forStream ? _streamOwner : _callOwner, heldByDesign: false, heldAcrossCalls: forStream, cancellationToken, flow);

    /// <summary>
    /// A call outside a TransactionScope: inside a <see cref="ConnectionScope"/> of this database it takes the scope's parked
    /// connection, or opens one the scope may park when the call ends; otherwise it opens one.
    /// </summary>
    private ValueTask<Lease> Acquire(
        bool async, bool forStream, Diagnostics.Detectors.FlowState? flow, CancellationToken cancellationToken)
    {
        if (ConnectionScope.SlotFor(Pool) is not { } slot)
            return Open(async, forStream, cancellationToken, flow);
        cancellationToken.ThrowIfCancellationRequested();
        return slot.TryTake(forStream, out Lease parked)
            ? new ValueTask<Lease>(parked)
            : OpenInScope(slot, async, forStream, flow, cancellationToken);
    }

    /// <summary>A call of a scope with nothing parked: opens a connection the scope may park when the call ends.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private ValueTask<Lease> OpenInScope(
        ScopeSlot slot, bool async, bool forStream, Diagnostics.Detectors.FlowState? flow, CancellationToken cancellationToken)
    {
        ValueTask<Lease> open = Open(async, forStream, cancellationToken, flow);
        return open.IsCompletedSuccessfully ? new ValueTask<Lease>(ForScope(open.Result, slot)) : OpenForScopeAsync(open, slot);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<Lease> OpenForScopeAsync(ValueTask<Lease> open, ScopeSlot slot) =>
        ForScope(await open.ConfigureAwait(false), slot);

    /// <summary>An open's lease, held in the scope: one holder per connection the scope opens.</summary>
    private static Lease ForScope(Lease lease, ScopeSlot slot) => lease with { Scope = slot.Opened(lease.Connection) };

    // A connection opened inside the scope joins it, when the provider enlists.
    protected override InvalidOperationException? NotInScope(System.Transactions.Transaction ambient) =>
        Pool.WhyNoEnlistment is { } why
            ? AmbientTransactions.NotJoined(
                $"'{poolName}' (OpenPerCall mode)",
                why,
                "Use a session's own transaction instead (db.OpenSession(), then session.BeginTransaction()).")
            : null;

    public override ValueTask ReleaseAsync(Lease lease, bool async, bool failed = false)
    {
        if (lease.Scope is { } held)
        {
            // Parked for the scope's next call, or back to the pool (another connection is parked, or the scope ended).
            if (held.Slot.TryPark(lease, held, failed))
                return default;
            held.DropCommand();
            return Pool.CloseAsync(lease, async);
        }

        if (!AmbientTransactions.AnyState || System.Transactions.Transaction.Current is not { } ambient ||
            AmbientTransactions.StateOf(ambient) is not { DoomWith: not null })
        {
            return Pool.CloseAsync(lease, async);
        }

        return CloseThenDoomAsync(ambient, lease, async);
    }

    public override Exception? TranslateFailure(DbConnection connection, Exception error)
    {
        if (ConnectionFailures.Translate(connection, error, _callOwner, inTransaction: false) is not { } broken)
            return null;
        if (System.Transactions.Transaction.Current is not { } ambient || Pool.WhyNoEnlistment is not null)
            return broken;

        // The scope's one connection broke: its transaction is over, whatever the caller does with the scope next.
        AmbientTransactions.ScopeState state = AmbientTransactions.Track(ambient);
        state.Broken = true;
        ConnectionBrokenException inScope = ScopeBroken(error, statementMayHaveRun: true);
        state.DoomWith = inScope;
        return inScope;
    }

    public override void Abandon(Lease lease, DbCommand command, Task pending) =>
        Pool.CloseWhenDone(lease, command, pending);
}
