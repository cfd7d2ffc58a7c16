using System.Data.Common;
using System.Runtime.CompilerServices;

namespace Orseis.Execution.Modes;

/// <summary>
/// OpenPerCall under an ambient <c>TransactionScope</c> whose calls failed: the server is asked what a failure did to the
/// scope's transaction, a scope whose transaction is over is rolled back once the failed call gave its connection back,
/// and every later call in it is refused with an Orseis error (<see cref="AmbientTransactions.ScopeState"/>).
/// </summary>
internal sealed partial class OpenPerCallSource
{
    /// <summary>
    /// An open inside a scope: the provider hands back the scope's own connection, and when that connection died since the
    /// last call, reports it in its own way (Npgsql with a <see cref="System.Transactions.TransactionException"/>, others with
    /// an <see cref="IOException"/> inside; MySql.Data hands the dead connection back, and its first statement fails: see
    /// <see cref="SettleScopeAsync"/>). Such a failure ends the scope's transaction: it is doomed, and reported as a broken
    /// connection inside the scope.
    /// </summary>
    private async ValueTask<Lease> OpenInScopeAsync(
        System.Transactions.Transaction ambient, bool async, bool forStream, CancellationToken cancellationToken)
    {
        try
        {
            return await Open(async, forStream, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception error) when (Pool.WhyNoEnlistment is null &&
                                      (error is System.Transactions.TransactionException ||
                                       OpenFailure.Of(error, Pool.Traits).BrokeWhileOpening))
        {
            AmbientTransactions.Track(ambient).Broken = true;
            ConnectionBrokenException broken = ScopeBroken(error, statementMayHaveRun: false);
            AmbientTransactions.Doom(ambient, broken);
            throw broken;
        }
    }

    /// <summary>
    /// A call under a scope in which an earlier call failed: refused when the scope's transaction is over, else run once the
    /// server has said what the failure did to it (on the scope's own connection, which the provider hands back).
    /// </summary>
    private async ValueTask<Lease> AcquireInFailedScopeAsync(
        System.Transactions.Transaction ambient, AmbientTransactions.ScopeState state, bool async, bool forStream,
        CancellationToken cancellationToken)
    {
        ThrowIfScopeEnded(state);
        Lease lease = await OpenInScopeAsync(ambient, async, forStream, cancellationToken).ConfigureAwait(false);
        try
        {
            if (await SettleScopeAsync(ambient, state, lease, async).ConfigureAwait(false) is { } failed)
                throw failed;
            ThrowIfScopeEnded(state);
            return lease;
        }
        catch
        {
            await Pool.CloseAsync(lease, async).ConfigureAwait(false);
            DoomPending(ambient);
            throw;
        }
    }

    private void ThrowIfScopeEnded(AmbientTransactions.ScopeState state)
    {
        if (state.Loss is { } loss)
            throw loss.ForScope(_callOwner);
        if (state.Broken)
            throw ScopeBroken(null, statementMayHaveRun: false);
    }

    public override void NoteFailure(DbConnection connection, Exception error)
    {
        if (System.Transactions.Transaction.Current is { } ambient && Pool.WhyNoEnlistment is null &&
            connection.State == System.Data.ConnectionState.Open)
        {
            AmbientTransactions.Track(ambient).Unsettled ??= ServerTransactions.ServerError(error);
        }
    }

    public override ValueTask<Exception?> SettleAsync(Lease lease, bool async) =>
        System.Transactions.Transaction.Current is { } ambient && AmbientTransactions.StateOf(ambient) is { Unsettled: not null } state
            ? SettleScopeAsync(ambient, state, lease, async)
            : default;

    /// <summary>Asks the server what a failed call did to the scope's transaction; dooms the scope when the server ended it.</summary>
    private async ValueTask<Exception?> SettleScopeAsync(
        System.Transactions.Transaction ambient, AmbientTransactions.ScopeState state, Lease lease, bool async)
    {
        if (state.Unsettled is not { } error || state.Loss is not null)
            return null;
        state.Unsettled = null;
        TransactionStanding standing = await ServerTransactions
            .AskAsync(Pool.Traits.TransactionQuestion, lease.Connection, null, error, async)
            .ConfigureAwait(false);
        if (standing == TransactionStanding.Open)
            return null;
        if (standing == TransactionStanding.Unknown && error is not DbException)
        {
            // Not the server's answer but the provider failing on a connection that no longer answers (MySql.Data's
            // NullReferenceException on a killed enlisted connection it still calls open): a broken connection.
            state.Broken = true;
            ConnectionBrokenException broken = ScopeBroken(error, statementMayHaveRun: true);
            state.DoomWith = broken;
            return broken;
        }

        var loss = new TransactionLoss(standing, error);
        state.Loss = loss;
        state.DoomWith = loss.ForScope(_callOwner);
        return null;
    }

    private ConnectionBrokenException ScopeBroken(Exception? error, bool statementMayHaveRun) =>
        new($"The connection that {_callOwner} uses inside the ambient TransactionScope broke" +
            (error is null ? " earlier" : statementMayHaveRun ? " while a statement ran" : " before this call") +
            " (the server or the network ended it), so the scope's transaction is lost: the server rolled its work back, " +
            "and nothing of it " +
            "will be committed. Dispose the scope without completing it and run the whole unit of work again in a new scope.",
            inTransaction: true, statementMayHaveRun, error);

    /// <summary>
    /// Gives the connection back, then rolls the scope's transaction back (see <see cref="AmbientTransactions.ScopeState.DoomWith"/>).
    /// </summary>
    // Not inlined: its state machine inlined into ReleaseAsync gave every release a frame of 144 bytes to zero.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private async ValueTask CloseThenDoomAsync(System.Transactions.Transaction ambient, Lease lease, bool async)
    {
        try
        {
            await Pool.CloseAsync(lease, async).ConfigureAwait(false);
        }
        finally
        {
            DoomPending(ambient);
        }
    }

    private static void DoomPending(System.Transactions.Transaction ambient)
    {
        if (AmbientTransactions.StateOf(ambient) is { DoomWith: { } why } state)
        {
            state.DoomWith = null;
            AmbientTransactions.Doom(ambient, why);
        }
    }
}
