using System.Data.Common;

namespace Orseis;

/// <summary>
/// A transaction on a <see cref="Session"/>. Calls on the session join it until it is committed or rolled back.
/// Disposing it without committing rolls it back.
/// </summary>
/// <remarks>
/// Commit, Rollback and Dispose take part in the session's one-call-at-a-time rule: while a call or a stream runs on the
/// session they throw <see cref="SessionBusyException"/> and change nothing, so the transaction can be committed once the
/// call is done. When the connection broke under the transaction, the server has already rolled its work back: Commit
/// throws <see cref="ConnectionBrokenException"/> saying so, Rollback and Dispose succeed. When a commit fails in a way
/// that leaves the server's state unknown (a failure, a timeout, a cancellation), Orseis closes the connection, so the
/// server rolls back whatever was not committed, and the session opens a new one for its next call: Orseis never
/// believes there is no transaction while the server may still hold one.
/// </remarks>
public sealed class SessionTransaction : IDisposable, IAsyncDisposable
{
    private readonly Session _session;

    internal SessionTransaction(Session session, DbTransaction transaction)
    {
        _session = session;
        Inner = transaction;
    }

    internal DbTransaction Inner { get; }

    /// <summary>
    /// The provider's transaction, for an API that must join it (a bulk copy on <see cref="Session.Connection"/>). End it
    /// through this object (<see cref="Commit"/>, <see cref="Rollback"/>, <see cref="Dispose"/>), never directly.
    /// </summary>
    public DbTransaction DbTransaction => Inner;

    /// <summary>True once committed, rolled back, disposed or lost with its connection.</summary>
    internal bool Ended { get; set; }

    /// <summary>Commits the transaction.</summary>
    /// <exception cref="SessionBusyException">A call or stream is running on the session; nothing was changed.</exception>
    /// <exception cref="ConnectionBrokenException">The connection broke: nothing was committed, or (when it broke during the commit)
    /// whether the commit took effect is unknown.</exception>
    /// <exception cref="CommandTimeoutException">The commit did not complete within the command timeout; whether it took effect is
    /// unknown.</exception>
    public void Commit() => End(Session.TransactionEnd.Commit, async: false, CancellationToken.None);

    /// <summary>Commits the transaction.</summary>
    /// <param name="cancellationToken">Cancels the call; whether a cancelled commit took effect is unknown.</param>
    /// <returns>A task that completes when the commit does.</returns>
    /// <exception cref="SessionBusyException">A call or stream is running on the session; nothing was changed.</exception>
    /// <exception cref="ConnectionBrokenException">The connection broke: nothing was committed, or (when it broke during the commit)
    /// whether the commit took effect is unknown.</exception>
    /// <exception cref="CommandTimeoutException">The commit did not complete within the command timeout; whether it took effect is
    /// unknown.</exception>
    public Task CommitAsync(CancellationToken cancellationToken = default) =>
        _session.EndTransactionAsync(this, Session.TransactionEnd.Commit, async: true, cancellationToken).AsTask();

    /// <summary>Rolls the transaction back. Succeeds when the connection broke, since the server has rolled the work back.</summary>
    /// <exception cref="SessionBusyException">A call or stream is running on the session; nothing was changed.</exception>
    public void Rollback() => End(Session.TransactionEnd.Rollback, async: false, CancellationToken.None);

    /// <summary>Rolls the transaction back. Succeeds when the connection broke, since the server has rolled the work back.</summary>
    /// <param name="cancellationToken">Cancels the call; the work is rolled back all the same (the connection is closed).</param>
    /// <returns>A task that completes when the rollback does.</returns>
    /// <exception cref="SessionBusyException">A call or stream is running on the session; nothing was changed.</exception>
    public Task RollbackAsync(CancellationToken cancellationToken = default) =>
        _session.EndTransactionAsync(this, Session.TransactionEnd.Rollback, async: true, cancellationToken).AsTask();

    /// <summary>Rolls back unless committed, and detaches the transaction from the session.</summary>
    /// <exception cref="SessionBusyException">A call or stream is running on the session; nothing was changed.</exception>
    public void Dispose() => End(Session.TransactionEnd.Dispose, async: false, CancellationToken.None);

    /// <summary>Rolls back unless committed, and detaches the transaction from the session.</summary>
    /// <returns>A task that completes when the transaction is disposed.</returns>
    /// <exception cref="SessionBusyException">A call or stream is running on the session; nothing was changed.</exception>
    public ValueTask DisposeAsync() => _session.EndTransactionAsync(this, Session.TransactionEnd.Dispose, async: true, CancellationToken.None);

    private void End(Session.TransactionEnd end, bool async, CancellationToken cancellationToken)
    {
        // A commit under a timeout runs the provider's async commit so that it can be abandoned on time.
        SyncPath.Block(_session.EndTransactionAsync(this, end, async, cancellationToken));
    }
}
