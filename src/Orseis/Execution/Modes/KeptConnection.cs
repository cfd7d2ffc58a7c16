using System.Data;
using System.Data.Common;
using System.Runtime.CompilerServices;

namespace Orseis.Execution.Modes;

/// <summary>
/// One connection kept open across calls (a <see cref="Session"/>'s, or a ReuseConnection database's shared one):
/// opened on demand, reopened after it broke when no transaction was open, and reported clearly when it broke.
/// Callers guard it against concurrent use; this type does not.
/// </summary>
/// <param name="pool">The pool's context.</param>
/// <param name="owner">Who holds it, for messages and findings.</param>
/// <param name="heldByDesign">True for ReuseConnection's shared connection, which is meant to stay out for the
/// database's lifetime: never a held-too-long finding.</param>
internal sealed class KeptConnection(PoolContext pool, string owner, bool heldByDesign = false)
{
    private DbCommand? _command;
    private int _defaultTimeout;
    private StrongBox<Lease>? _lease; // one reference: a close racing a call reads a whole lease or none
    private DbTransaction? _transaction;
    private Exception? _unsettled; // a failure inside the transaction the server has not been asked about yet

    /// <summary>The kept connection and its hold, while open.</summary>
    public Lease? Current => _lease?.Value;

    public DbConnection? Connection => _lease?.Value.Connection;

    /// <summary>
    /// The session's transaction; setting it (a new one, or none when it ends) forgets what the server did to the last one.
    /// </summary>
    public DbTransaction? Transaction
    {
        get => _transaction;
        set
        {
            _transaction = value;
            _unsettled = null;
            Loss = null;
        }
    }

    /// <summary>Set when the server ended the open <see cref="Transaction"/> (<see cref="ServerTransactions"/>); null otherwise.</summary>
    public TransactionLoss? Loss { get; private set; }

    /// <summary>Who holds the connection, for messages.</summary>
    public string Owner => owner;

    /// <summary>
    /// The ambient transaction the connection joined as it opened (a provider that enlists, opened inside a
    /// <c>TransactionScope</c>); null otherwise.
    /// </summary>
    public System.Transactions.Transaction? Enlisted { get; private set; }

    /// <summary>How many times a broken connection was replaced by a new one.</summary>
    public int Reopens { get; private set; }

    /// <summary>
    /// The kept connection when a call can have it as it is (open, nothing to settle or lost): the common case, answered
    /// without <see cref="EnsureOpenAsync"/>'s async frame. False when the call must go through it.
    /// </summary>
    public bool TryReady(out Lease ready)
    {
        if (Current is { Connection.State: ConnectionState.Open } open && _unsettled is null && Loss is null)
        {
            ready = open;
            return true;
        }

        ready = default;
        return false;
    }

    public async ValueTask<Lease> EnsureOpenAsync(bool async, CancellationToken cancellationToken)
    {
        if (TryReady(out Lease ready))
            return ready;
        Lease? kept = Current;
        if (kept is { Connection.State: ConnectionState.Open } open)
            return await SettledAsync(open, async).ConfigureAwait(false);
        if (Loss is { } lost && Transaction is not null)
            throw lost.ForCall(owner);
        if (Transaction is not null)
        {
            throw new ConnectionBrokenException(
                $"The connection of {owner} is closed and a transaction was open on it, so the transaction's work is lost. " +
                "Dispose the transaction; the next call after that opens a new connection.",
                inTransaction: true, statementMayHaveRun: false, innerException: null);
        }

        if (kept is { } broken)
        {
            _lease = null;
            DisposeCommand();
            await pool.CloseAsync(broken, async).ConfigureAwait(false);
            Reopens++;
        }

        Lease lease = await pool.OpenAsync(async, owner, heldByDesign, heldAcrossCalls: !heldByDesign, cancellationToken)
            .ConfigureAwait(false);
        _lease = new StrongBox<Lease>(lease);
        Enlisted = pool.WhyNoEnlistment is null ? System.Transactions.Transaction.Current : null;
        return lease;
    }

    /// <summary>
    /// Replaces a failure that left the connection closed with a <see cref="ConnectionBrokenException"/>, and the server's
    /// rejection of a statement in a transaction it aborted with a <see cref="TransactionRolledBackException"/>.
    /// </summary>
    public Exception? Translate(DbConnection connection, Exception error) =>
        (Exception?)ConnectionFailures.Translate(connection, error, owner, inTransaction: Transaction is not null) ??
        (Loss is { Standing: TransactionStanding.Aborted } aborted && ServerTransactions.IsRejectedAfterAbort(error)
            ? aborted.ForCall(owner)
            : null);

    /// <summary>
    /// Notes a failure of a statement in the open transaction on <paramref name="connection"/>, so the server is asked what it
    /// did with the transaction (<see cref="SettleAsync"/>) before anything else runs in it.
    /// </summary>
    public void NoteFailure(DbConnection connection, Exception error)
    {
        if (_transaction is null || !ReferenceEquals(connection, Connection))
            return;
        if (Loss is not null && ServerTransactions.IsRejectedAfterAbort(error))
            return; // the aborted transaction's own answer: the first error stays the cause
        _unsettled ??= ServerTransactions.ServerError(error);
    }

    /// <summary>
    /// Asks the server what it did with the transaction after a failure noted by <see cref="NoteFailure"/>, once: sets
    /// <see cref="Loss"/> when it rolled the transaction back or aborted it. When the server cannot be asked, closes the
    /// connection, which rolls the transaction back, so Orseis never guesses.
    /// </summary>
    public async ValueTask SettleAsync(Lease lease, bool async)
    {
        Exception? error = _unsettled;
        _unsettled = null;
        if (error is null || _transaction is not { } transaction || !ReferenceEquals(lease.Connection, Connection) ||
            lease.Connection.State != ConnectionState.Open)
        {
            return;
        }

        await AskAsync(lease, transaction, Loss?.Cause ?? error, async).ConfigureAwait(false);
    }

    /// <summary>
    /// Asks the server again about a transaction it aborted: a <c>ROLLBACK TO SAVEPOINT</c> sent as SQL may have recovered it.
    /// </summary>
    public async ValueTask RecheckAsync(Lease lease, bool async)
    {
        if (Loss is { Standing: TransactionStanding.Aborted } aborted && _transaction is { } transaction)
            await AskAsync(lease, transaction, aborted.Cause, async).ConfigureAwait(false);
    }

    private async ValueTask AskAsync(Lease lease, DbTransaction transaction, Exception cause, bool async)
    {
        TransactionStanding standing = await ServerTransactions.AskAsync(
            pool.Traits.TransactionQuestion, lease.Connection, transaction, cause, async).ConfigureAwait(false);
        if (standing == TransactionStanding.Unknown && lease.Connection.State == ConnectionState.Open)
            Discard(lease, command: null, pending: null);
        Loss = standing == TransactionStanding.Open ? null : new TransactionLoss(standing, cause);
    }

    private async ValueTask<Lease> SettledAsync(Lease open, bool async)
    {
        await SettleAsync(open, async).ConfigureAwait(false);
        if (Loss is { Standing: not TransactionStanding.Aborted } lost)
            throw lost.ForCall(owner);
        return Current ?? throw new InvalidOperationException("Orseis bug: a settled transaction left no connection and no loss.");
    }

    /// <summary>
    /// Gives up <paramref name="lease"/> (this kept connection's) while the provider may still use it: it is closed
    /// once <paramref name="pending"/> completes (at once when null) and never used by this holder again; the next call opens a new
    /// one. A transaction open on it is lost (closing rolls it back), so later calls fail until it is disposed.
    /// </summary>
    public void Discard(Lease lease, DbCommand? command, Task? pending)
    {
        if (ReferenceEquals(Connection, lease.Connection))
        {
            _lease = null;
            DisposeCommand();
            Reopens++;
        }

        pool.CloseWhenDone(lease, command, pending ?? Task.CompletedTask);
    }

    public async ValueTask CloseAsync(bool async)
    {
        DbTransaction? transaction = Transaction;
        Transaction = null;
        if (transaction is not null && Connection is { State: ConnectionState.Open })
        {
            try
            {
                if (async)
                    await transaction.DisposeAsync().ConfigureAwait(false);
                else
                    transaction.Dispose();
            }
#pragma warning disable CA1031 // closing the connection below rolls back all the same, or the server already did
            catch (Exception)
#pragma warning restore CA1031
            {
            }
        }

        Lease? lease = Current;
        _lease = null;
        DisposeCommand();
        if (lease is { } open)
            await pool.CloseAsync(open, async).ConfigureAwait(false);
    }

    /// <summary>
    /// A command on <paramref name="connection"/> (this kept connection) for one call: the command of the previous
    /// call when that call succeeded, its timeout back at the provider's default, so a provider that keeps prepared
    /// statements per command (SQLite) reuses them when the text is the same. A call never shares it: it is taken
    /// here and comes back through <see cref="ReturnCommand"/>.
    /// </summary>
    public DbCommand RentCommand(DbConnection connection)
    {
        DbCommand? command = _command;
        _command = null;
        if (command is not null)
        {
            if (ReferenceEquals(command.Connection, connection))
            {
                if (command.CommandTimeout != _defaultTimeout)
                    command.CommandTimeout = _defaultTimeout;
                return command;
            }

            command.Dispose();
        }

        command = connection.CreateCommand();
        _defaultTimeout = command.CommandTimeout;
        return command;
    }

    /// <summary>
    /// Takes back a command from <see cref="RentCommand"/>, its parameters cleared, to hand out again; disposes it
    /// instead when its call failed or the connection it belongs to is no longer this one's.
    /// </summary>
    public void ReturnCommand(DbCommand command, bool failed)
    {
        if (failed || _command is not null || Connection is not { } connection || !ReferenceEquals(command.Connection, connection))
        {
            command.Dispose();
            return;
        }

        _command = command;
    }

    private void DisposeCommand()
    {
        DbCommand? command = _command;
        _command = null;
        command?.Dispose();
    }
}
