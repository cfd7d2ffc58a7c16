using System.Data.Common;

namespace Orseis.Execution.Modes;

/// <summary>
/// A <see cref="Session"/>'s one connection, kept across calls, and its one-call-at-a-time guard: a second call while one
/// runs (or while a stream over it is unfinished) throws <see cref="SessionBusyException"/> rather than waiting, since a
/// session is one unit of work. Ending a transaction takes the same guard (<see cref="TryEnter"/>).
/// </summary>
internal sealed class SessionSource(PoolContext pool, string owner) : KeptSource(pool, typeof(Session), new KeptConnection(pool, owner))
{
    private int _busy;

    public override DbTransaction? Transaction => Kept.Transaction;

    /// <summary>Takes the guard for something other than a call (ending a transaction); false when a call or stream holds it.</summary>
    public bool TryEnter() => Interlocked.CompareExchange(ref _busy, 1, 0) == 0;

    /// <summary>Gives back the guard taken by <see cref="TryEnter"/> or <see cref="ConnectionSource.AcquireAsync"/>.</summary>
    public void Exit() => Volatile.Write(ref _busy, 0);

    // The session's connection is in the scope only when it was opened inside it, on a provider that enlists.
    protected override InvalidOperationException? NotInScope(System.Transactions.Transaction ambient) =>
        ambient.Equals(Kept.Enlisted)
            ? null
            : AmbientTransactions.NotJoined(
                owner, Pool.WhyNoEnlistment ?? "the session's connection was opened outside this scope and did not join it",
                Pool.WhyNoEnlistment is null
                    ? "Open the session inside the scope (db.OpenSession() after creating the scope), " +
                      "or use the session's own transaction (session.BeginTransaction())."
                    : "Use the session's own transaction instead (session.BeginTransaction()).");

    protected override ValueTask<Lease> AcquireCoreAsync(
        System.Transactions.Transaction? ambient, bool async, bool forStream, Diagnostics.Detectors.FlowState? flow,
        CancellationToken cancellationToken)
    {
        if (Kept.Enlisted is { } enlisted && System.Transactions.Transaction.Current is null && AmbientTransactions.IsActive(enlisted))
            throw AmbientTransactions.StillJoined(owner);
        if (!TryEnter())
        {
            throw new SessionBusyException(
                "This session is already running a command, or a Stream over its results is still being read, on its one connection. " +
                "A session runs one command at a time: finish or dispose the stream first, use one session per concurrent flow, " +
                "or make concurrent calls on the Database in OpenPerCall mode.");
        }

        return Kept.TryReady(out Lease ready) ? new ValueTask<Lease>(ready) : AcquireWhileBusyAsync(async, cancellationToken);
    }

    private async ValueTask<Lease> AcquireWhileBusyAsync(bool async, CancellationToken cancellationToken)
    {
        try
        {
            return await Kept.EnsureOpenAsync(async, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            Exit();
            throw;
        }
    }

    protected override void Leave() => Exit();

    protected override ValueTask CloseCoreAsync(bool async) => Kept.CloseAsync(async);
}
