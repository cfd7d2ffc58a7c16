using System.Data.Common;

namespace Orseis.Execution;

/// <summary><see cref="ExecutionMode.OpenPerCall"/>: every call opens a pooled connection and disposes it.</summary>
/// <param name="pool">The pool's context.</param>
/// <param name="poolName">The pool's name, for messages.</param>
internal sealed class OpenPerCallSource(PoolContext pool, string poolName) : ConnectionSource(pool, typeof(Database))
{
    private readonly string _callOwner = $"a call on '{poolName}' (OpenPerCall mode)";
    private readonly string _streamOwner = $"a stream on '{poolName}' (OpenPerCall mode)";

    // A stream holds its connection across the caller's own code, like a session: the held-too-long detector watches it.
    protected override ValueTask<Lease> AcquireCoreAsync(bool async, bool forStream, CancellationToken cancellationToken)
    {
        if (System.Transactions.Transaction.Current is not { } ambient)
            return Open(async, forStream, cancellationToken);
        return AmbientTransactions.StateOf(ambient) is { } state
            ? AcquireInFailedScopeAsync(ambient, state, async, forStream, cancellationToken)
            : OpenInScopeAsync(ambient, async, forStream, cancellationToken);
    }

    private ValueTask<Lease> Open(bool async, bool forStream, CancellationToken cancellationToken) =>
        Pool.OpenAsync(async, forStream ? _streamOwner : _callOwner, heldByDesign: false, heldAcrossCalls: forStream, cancellationToken);

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
                                      (error is System.Transactions.TransactionException || ConnectionFailures.BrokeWhileOpening(error)))
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

    // A connection opened inside the scope joins it, when the provider enlists.
    protected override InvalidOperationException? NotInScope(System.Transactions.Transaction ambient) =>
        Pool.WhyNoEnlistment is { } why
            ? AmbientTransactions.NotJoined(
                $"'{poolName}' (OpenPerCall mode)",
                why,
                "Use a session's own transaction instead (db.OpenSession(), then session.BeginTransaction()).")
            : null;

    public override ValueTask ReleaseAsync(Lease lease, bool async)
    {
        if (System.Transactions.Transaction.Current is not { } ambient ||
            AmbientTransactions.StateOf(ambient) is not { DoomWith: not null })
        {
            return Pool.CloseAsync(lease, async);
        }

        return CloseThenDoomAsync(ambient, lease, async);
    }

    /// <summary>
    /// Gives the connection back, then rolls the scope's transaction back (see <see cref="AmbientTransactions.ScopeState.DoomWith"/>).
    /// </summary>
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
