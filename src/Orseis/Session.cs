using System.Data;
using System.Data.Common;

namespace Orseis;

/// <summary>
/// One open connection, used by every call made on the session until it is disposed (the connection then goes back
/// to the pool). Session state (temporary tables, variables, <c>SET</c> options) survives between calls, and
/// transactions are available. A session runs one command at a time: a second call while one runs, or while a
/// <c>Stream</c> over its results is unfinished, throws <see cref="SessionBusyException"/>.
/// </summary>
/// <example>
/// <code>
/// using var session = db.OpenSession();
/// using var tx = session.BeginTransaction();
/// session.Execute("insert into log(text) values (@text)", new { text });
/// tx.Commit();
/// </code>
/// </example>
public sealed class Session : SqlRunner, IDisposable, IAsyncDisposable
{
    private readonly SessionSource _source;
    private int _disposed;

    internal Session(Database database)
        : this(new SessionSource(database.Pool, $"session on '{database.PoolName}'"))
    {
    }

    private Session(SessionSource source)
        : base(source)
    {
        _source = source;
        Pool.Telemetry.SessionOpened();
    }

    private KeptConnection Kept => _source.Kept;

    /// <summary>The transaction open on this session, if any.</summary>
    public SessionTransaction? Transaction { get; private set; }

    /// <summary>
    /// The session's open connection, for what Orseis does not wrap (PostgreSQL's <c>COPY</c>, <c>SqlBulkCopy</c>,
    /// <c>MySqlBulkCopy</c>): use it between the session's calls, never during one. Do not close or dispose it, change its
    /// database, or begin or end a transaction on it (use <see cref="BeginTransaction"/>, and pass
    /// <see cref="SessionTransaction.DbTransaction"/> to what needs it): the session keeps using it, and the pool gets it
    /// back when the session is disposed.
    /// </summary>
    /// <exception cref="InvalidOperationException">The session's connection broke; its next call opens a new one.</exception>
    public DbConnection Connection
    {
        get
        {
            ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
            return Kept.Connection ?? throw new InvalidOperationException(
                "This session has no open connection now: the last one broke. Its next call opens a new one.");
        }
    }

    /// <summary>How many times this session replaced a connection that had broken (outside a transaction).</summary>
    public int Reopens => Kept.Reopens;

    internal async ValueTask OpenAsync(bool async, CancellationToken cancellationToken)
    {
        System.Diagnostics.Activity? span = Diagnostics.OrseisActivitySource.Tracing ? Pool.Telemetry.Spans.StartSessionOpen() : null;
        try
        {
            await Kept.EnsureOpenAsync(async, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception error)
        {
            Diagnostics.OrseisActivitySource.Failed(span, error);
            throw;
        }
        finally
        {
            Diagnostics.OrseisActivitySource.Stop(span);
        }
    }

    /// <summary>Starts a transaction that every call on this session joins until it is committed, rolled back or disposed.</summary>
    /// <param name="isolationLevel">The isolation level; <see cref="IsolationLevel.Unspecified"/> for the provider's default.</param>
    /// <returns>The transaction; dispose it (rolling back unless committed).</returns>
    /// <exception cref="InvalidOperationException">A transaction is already open on this session.</exception>
    public SessionTransaction BeginTransaction(IsolationLevel isolationLevel = IsolationLevel.Unspecified) =>
        SyncPath.Done(BeginTransactionAsync(isolationLevel, async: false, CancellationToken.None));

    /// <inheritdoc cref="BeginTransaction(IsolationLevel)"/>
    /// <param name="isolationLevel">The isolation level; <see cref="IsolationLevel.Unspecified"/> for the provider's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<SessionTransaction> BeginTransactionAsync(IsolationLevel isolationLevel = IsolationLevel.Unspecified, CancellationToken cancellationToken = default) =>
        BeginTransactionAsync(isolationLevel, async: true, cancellationToken).AsTask();

    private async ValueTask<SessionTransaction> BeginTransactionAsync(IsolationLevel isolationLevel, bool async, CancellationToken cancellationToken)
    {
        if (Transaction is not null)
            throw new InvalidOperationException("A transaction is already open on this session; commit, roll back or dispose it before starting another.");
        Lease lease = await _source.AcquireAsync(async, forStream: false, cancellationToken).ConfigureAwait(false);
        DbConnection connection = lease.Connection;
        try
        {
            DbTransaction transaction = async
                ? await connection.BeginTransactionAsync(isolationLevel, cancellationToken).ConfigureAwait(false)
                : connection.BeginTransaction(isolationLevel);
            Kept.Transaction = transaction;
            Transaction = new SessionTransaction(this, transaction);
            return Transaction;
        }
        finally
        {
            await _source.ReleaseAsync(lease, async).ConfigureAwait(false);
        }
    }

    /// <summary>How a transaction ends.</summary>
    internal enum TransactionEnd
    {
        Commit,
        Rollback,
        Dispose,
    }

    /// <summary>
    /// Ends <paramref name="transaction"/> under the session's one-call-at-a-time guard. The transaction is detached only
    /// when the server is known to have ended it: after a successful commit or rollback, or after the connection was
    /// closed (which makes the server roll back whatever was not committed).
    /// </summary>
    internal async ValueTask EndTransactionAsync(SessionTransaction transaction, TransactionEnd end, bool async, CancellationToken cancellationToken)
    {
        if (transaction.Ended)
        {
            if (end == TransactionEnd.Dispose)
                return;
            throw new InvalidOperationException("This transaction has already been committed or rolled back.");
        }

        if (!_source.TryEnter())
        {
            string what = end == TransactionEnd.Commit ? "commit" : end == TransactionEnd.Rollback ? "roll back" : "dispose";
            throw new SessionBusyException(
                $"Cannot {what} the transaction: a command is running on this session, or a Stream over its results is still being read. " +
                "Nothing was changed and the transaction is still open: finish or dispose the stream (or await the call) first.");
        }

        try
        {
            await EndTransactionWhileBusyAsync(transaction, end, async, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _source.Exit();
        }
    }

    private async ValueTask EndTransactionWhileBusyAsync(SessionTransaction transaction, TransactionEnd end, bool async, CancellationToken cancellationToken)
    {
        bool commit = end == TransactionEnd.Commit;
        if (Kept.Current is { Connection.State: ConnectionState.Open } current)
        {
            // A failure the server was not asked about yet (a stream's), and a PostgreSQL transaction a savepoint may have recovered.
            await Kept.SettleAsync(current, async).ConfigureAwait(false);
            if (commit)
                await Kept.RecheckAsync(current, async).ConfigureAwait(false);
        }

        if (Kept.Loss is { } loss)
        {
            // The server ended the transaction: roll back what it may still hold, and never report a commit.
            await RollBackLostAsync(transaction, async).ConfigureAwait(false);
            Detach(transaction);
            if (commit)
                throw loss.ForCommit(Kept.Owner);
            return;
        }

        Lease? kept = Kept.Current;
        if (kept is not { Connection: { State: ConnectionState.Open } connection } lease)
        {
            // The connection died under the transaction: the server rolled its work back when the connection ended.
            Detach(transaction);
            if (kept is { } broken)
                Kept.Discard(broken, command: null, pending: null);
            if (commit)
            {
                throw new ConnectionBrokenException(
                    $"Nothing was committed: the connection of this session on '{Pool.Telemetry.PoolName}' broke while the transaction was open, " +
                    "and the server rolled the transaction's work back when the connection ended. The session opens a new connection for its next call.",
                    inTransaction: true, statementMayHaveRun: false, innerException: null);
            }

            return;
        }

        // The end of a transaction is a call of its own shape: watched whole, on the connection the session holds.
        CallLifecycle call = CallLifecycle.ForTransactionEnd(this, lease, async, cancellationToken);
        try
        {
            Exception failure;
            try
            {
                if (call.Watch is null)
                {
                    if (commit)
                        transaction.Inner.Commit();
                    else
                        transaction.Inner.Rollback();
                }
                else
                {
                    Task ending = commit ? transaction.Inner.CommitAsync(call.Token) : transaction.Inner.RollbackAsync(call.Token);
                    await call.WatchAsync(ending).ConfigureAwait(false);
                }

                Detach(transaction);
                return;
            }
            catch (Exception error)
            {
                failure = error;
            }

            // Orseis cannot tell what the server holds now: close the connection, so the server rolls back whatever was not
            // committed, and let the next call open a new one.
            bool brokeDuring = connection.State != ConnectionState.Open;
            Detach(transaction);
            Kept.Discard(lease, command: null, call.Watch?.Abandoned);
            if (commit)
                throw CommitFailed(call, failure, brokeDuring, cancellationToken);
        }
        finally
        {
            await call.EndAsync(async).ConfigureAwait(false);
        }
    }

    /// <summary>What a commit that failed with <paramref name="failure"/> throws: whether it took effect is unknown.</summary>
    private static Exception CommitFailed(
        in CallLifecycle call, Exception failure, bool brokeDuring, CancellationToken cancellationToken)
    {
        const string Closed = "Orseis closed the connection, so the server rolls back whatever was not committed; the session opens a " +
                              "new connection for its next call. Check whether the transaction's work is there before doing it again.";
        if (call.Watch is { CallerCancelled: true })
        {
            return new OperationCanceledException(
                $"The commit was cancelled and whether it took effect is unknown. {Closed}", failure, cancellationToken);
        }

        if (call.Watch is { DeadlineHit: true })
        {
            return new CommandTimeoutException(
                $"The commit did not complete within the command timeout of {call.Timeout?.TotalSeconds:0.###} s " +
                $"(OrseisOptions.CommandTimeout), and whether it took effect is unknown. {Closed}", call.Timeout ?? TimeSpan.Zero, failure);
        }

        if (brokeDuring)
        {
            return new ConnectionBrokenException(
                $"The connection broke during the commit, and whether it took effect is unknown. {Closed}",
                inTransaction: true, statementMayHaveRun: true, failure);
        }

        return new OrseisException(
            $"The commit failed ({failure.GetType().FullName}, the inner exception), and Orseis cannot tell whether the server " +
            $"still holds the transaction. {Closed}", failure);
    }

    /// <summary>
    /// Rolls back a transaction the server ended (harmless where it holds none; needed where it aborted it), through the
    /// provider so that it knows the transaction is over. A rollback that fails closes the connection, which rolls back all the same.
    /// </summary>
    private async ValueTask RollBackLostAsync(SessionTransaction transaction, bool async)
    {
        if (Kept.Current is not { Connection.State: ConnectionState.Open } lease || transaction.Inner.Connection is null)
            return;
        try
        {
            if (async)
                await transaction.Inner.RollbackAsync().ConfigureAwait(false);
            else
                transaction.Inner.Rollback();
        }
#pragma warning disable CA1031 // closing the connection rolls back whatever the server still holds
        catch (Exception)
#pragma warning restore CA1031
        {
            Kept.Discard(lease, command: null, pending: null);
        }
    }

    private void Detach(SessionTransaction transaction)
    {
        transaction.Ended = true;
        if (ReferenceEquals(Transaction, transaction))
        {
            Transaction = null;
            Kept.Transaction = null;
        }
    }

    /// <summary>Rolls back an open transaction and returns the connection to the pool.</summary>
    public void Dispose() => SyncPath.Done(DisposeAsync(async: false));

    /// <summary>Rolls back an open transaction and returns the connection to the pool.</summary>
    /// <returns>A task that completes when the connection is closed.</returns>
    public ValueTask DisposeAsync() => DisposeAsync(async: true);

    private async ValueTask DisposeAsync(bool async)
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        if (Transaction is { } transaction)
            transaction.Ended = true;
        Transaction = null;
        Pool.Telemetry.SessionClosed();
        await _source.CloseAsync(async).ConfigureAwait(false);
    }
}
