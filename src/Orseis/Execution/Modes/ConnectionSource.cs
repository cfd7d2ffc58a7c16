using System.Data.Common;

namespace Orseis.Execution.Modes;

/// <summary>
/// How a runner gets the connection for one call: one implementation per way of running (<see cref="OpenPerCallSource"/>,
/// <see cref="ReuseConnectionSource"/>, <see cref="SessionSource"/>). <see cref="SqlRunner"/>'s one executor and its streams run
/// every call over a source: acquire, rent a command, run, return the command, release, with failures translated and
/// abandoned calls handed back here. A new way of running is one new subclass.
/// </summary>
/// <param name="pool">The pool's context.</param>
/// <param name="ownerType">The runner that owns it (<see cref="Database"/> or <see cref="Session"/>), named when it is used after being
/// closed.</param>
internal abstract class ConnectionSource(PoolContext pool, Type ownerType)
{
    private int _closed;

    public PoolContext Pool { get; } = pool;

    /// <summary>The transaction commands must join, if any.</summary>
    public virtual DbTransaction? Transaction => null;

    /// <summary>
    /// Whether a call may open a connection of its own (open per call, in a scope or not): only then does the call need the
    /// churn detector's flow state (<see cref="Diagnostics.PoolTelemetry.EnterFlow"/>). A session or a kept connection
    /// opened its connection already.
    /// </summary>
    public virtual bool OpensPerCall => false;

    /// <summary>An open connection for one call, or for one stream (<paramref name="forStream"/>) until it ends.</summary>
    /// <exception cref="ObjectDisposedException">The runner was disposed.</exception>
    /// <param name="async">Whether the call is async.</param>
    /// <param name="forStream">Whether the connection is held by a stream until it ends.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <param name="flow">The caller's flow as its entry point read it (<see cref="Diagnostics.PoolTelemetry.EnterFlow"/>), for
    /// an open; null to let the open read it.</param>
    public ValueTask<Lease> AcquireAsync(
        bool async, bool forStream, CancellationToken cancellationToken, Diagnostics.Detectors.FlowState? flow = null)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _closed) != 0, ownerType);
        System.Transactions.Transaction? ambient = System.Transactions.Transaction.Current;
        if (ambient is not null && NotInScope(ambient) is { } refused)
            throw refused;
        return AcquireCoreAsync(ambient, async, forStream, flow, cancellationToken);
    }

    /// <summary>
    /// Why a call under the ambient transaction <paramref name="ambient"/> must not run (its connection would not be in
    /// the scope: see <see cref="AmbientTransactions"/>), or null when it may.
    /// </summary>
    protected abstract InvalidOperationException? NotInScope(System.Transactions.Transaction ambient);

    /// <inheritdoc cref="AcquireAsync"/>
    /// <param name="ambient">The ambient transaction the call runs under, read once by <see cref="AcquireAsync"/>; null for none.</param>
    /// <param name="async">Whether the call is async.</param>
    /// <param name="forStream">Whether the connection is held by a stream until it ends.</param>
    /// <param name="flow">The caller's flow, for an open; null to let the open read it.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    protected abstract ValueTask<Lease> AcquireCoreAsync(
        System.Transactions.Transaction? ambient, bool async, bool forStream, Diagnostics.Detectors.FlowState? flow,
        CancellationToken cancellationToken);

    /// <summary>
    /// Gives back what <see cref="AcquireAsync"/> returned; <paramref name="failed"/> when the call failed (its connection may
    /// be broken, and is not kept for another call without a look at its state).
    /// </summary>
    public abstract ValueTask ReleaseAsync(Lease lease, bool async, bool failed = false);

    /// <summary>
    /// The command for one buffered call on <paramref name="lease"/>'s connection, with no text, parameters or transaction yet.
    /// A source that keeps its connection may hand out the previous call's command again (see
    /// <see cref="KeptConnection.RentCommand"/>), so a provider that keeps a command's prepared statements (SQLite)
    /// does not prepare the same text again.
    /// </summary>
    /// <remarks>A call in a <see cref="ConnectionScope"/> gets the command the scope's last call left on the same connection.</remarks>
    public virtual DbCommand RentCommand(in Lease lease) =>
        lease.Scope is { } scope ? scope.RentCommand(lease.Connection) : lease.Connection.CreateCommand();

    /// <summary>Gives back what <see cref="RentCommand"/> returned, its parameters cleared; <paramref name="failed"/> when the call
    /// failed.</summary>
    public virtual void ReturnCommand(in Lease lease, DbCommand command, bool failed)
    {
        if (lease.Scope is not { } scope || !scope.TryKeepCommand(command, failed))
            command.Dispose();
    }

    /// <summary>A clearer exception for a failure that left <paramref name="connection"/> broken, or null to let it pass.</summary>
    public abstract Exception? TranslateFailure(DbConnection connection, Exception error);

    /// <summary>
    /// Notes that a statement failed on <paramref name="connection"/>, so that a transaction it may have ended on the server
    /// is asked about (<see cref="SettleAsync"/>) before anything else runs in it. Nothing is sent here.
    /// </summary>
    public virtual void NoteFailure(DbConnection connection, Exception error)
    {
    }

    /// <summary>
    /// Asks the server, once, what it did with the transaction a noted failure ran in (<see cref="ServerTransactions"/>),
    /// on <paramref name="lease"/>'s connection while the failed call still holds it. Does nothing when no transaction was open.
    /// Returns what the failed call throws instead of the provider's error, if anything.
    /// </summary>
    public virtual ValueTask<Exception?> SettleAsync(Lease lease, bool async) => default;

    /// <summary>
    /// Takes back <paramref name="lease"/>'s connection and <paramref name="command"/> from a call abandoned while the provider
    /// still uses them (see <see cref="CallWatch"/>): releases what the call held now, and closes the connection once
    /// <paramref name="pending"/> completes, never using it again.
    /// </summary>
    public abstract void Abandon(Lease lease, DbCommand command, Task pending);

    /// <summary>Closes whatever the source keeps open; later calls throw <see cref="ObjectDisposedException"/>. Only the first call does
    /// anything.</summary>
    public ValueTask CloseAsync(bool async) => Interlocked.Exchange(ref _closed, 1) == 0 ? CloseCoreAsync(async) : default;

    /// <inheritdoc cref="CloseAsync"/>
    protected virtual ValueTask CloseCoreAsync(bool async) => default;
}
