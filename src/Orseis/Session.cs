using System.Data;
using System.Data.Common;
using Orseis.Execution;

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
    private readonly KeptConnection _kept;
    private int _busy;
    private int _disposed;

    internal Session(Database database)
        : base(database.Pool)
    {
        _kept = new KeptConnection(database.Pool, $"session on '{database.PoolName}'");
        Pool.Telemetry.SessionOpened();
    }

    /// <summary>The transaction open on this session, if any.</summary>
    public SessionTransaction? Transaction { get; private set; }

    /// <summary>How many times this session replaced a connection that had broken (outside a transaction).</summary>
    public int Reopens => _kept.Reopens;

    internal async ValueTask OpenAsync(bool async, CancellationToken cancellationToken) =>
        await _kept.EnsureOpenAsync(async, cancellationToken).ConfigureAwait(false);

    /// <summary>Starts a transaction that every call on this session joins until it is committed, rolled back or disposed.</summary>
    /// <param name="isolationLevel">The isolation level; <see cref="IsolationLevel.Unspecified"/> for the provider's default.</param>
    /// <returns>The transaction; dispose it (rolling back unless committed).</returns>
    /// <exception cref="InvalidOperationException">A transaction is already open on this session.</exception>
    public SessionTransaction BeginTransaction(IsolationLevel isolationLevel = IsolationLevel.Unspecified) =>
        BeginTransactionAsync(isolationLevel, async: false, CancellationToken.None).GetAwaiter().GetResult();

    /// <inheritdoc cref="BeginTransaction(IsolationLevel)"/>
    /// <param name="isolationLevel">The isolation level; <see cref="IsolationLevel.Unspecified"/> for the provider's default.</param>
    /// <param name="cancellationToken">Cancels the call.</param>
    public Task<SessionTransaction> BeginTransactionAsync(IsolationLevel isolationLevel = IsolationLevel.Unspecified, CancellationToken cancellationToken = default) =>
        BeginTransactionAsync(isolationLevel, async: true, cancellationToken).AsTask();

    private async ValueTask<SessionTransaction> BeginTransactionAsync(IsolationLevel isolationLevel, bool async, CancellationToken cancellationToken)
    {
        if (Transaction is not null)
            throw new InvalidOperationException("A transaction is already open on this session; commit, roll back or dispose it before starting another.");
        DbConnection connection = await AcquireAsync(async, forStream: false, cancellationToken).ConfigureAwait(false);
        try
        {
            DbTransaction transaction = async
                ? await connection.BeginTransactionAsync(isolationLevel, cancellationToken).ConfigureAwait(false)
                : connection.BeginTransaction(isolationLevel);
            _kept.Transaction = transaction;
            Transaction = new SessionTransaction(this, transaction);
            return Transaction;
        }
        finally
        {
            await ReleaseAsync(connection, async).ConfigureAwait(false);
        }
    }

    /// <summary>Called by <see cref="SessionTransaction"/> when it ends, so later calls run outside it.</summary>
    internal void EndTransaction(SessionTransaction transaction)
    {
        if (ReferenceEquals(Transaction, transaction))
        {
            Transaction = null;
            _kept.Transaction = null;
        }
    }

    private protected override DbTransaction? CurrentTransaction => _kept.Transaction;

    private protected override ValueTask<DbConnection> AcquireAsync(bool async, bool forStream, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        if (Interlocked.CompareExchange(ref _busy, 1, 0) != 0)
        {
            throw new SessionBusyException(
                "This session is already running a command, or a Stream over its results is still being read, on its one connection. " +
                "A session runs one command at a time: finish or dispose the stream first, use one session per concurrent flow, " +
                "or make concurrent calls on the Database in OpenPerCall mode.");
        }

        return AcquireWhileBusyAsync(async, cancellationToken);
    }

    private async ValueTask<DbConnection> AcquireWhileBusyAsync(bool async, CancellationToken cancellationToken)
    {
        try
        {
            return await _kept.EnsureOpenAsync(async, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            Volatile.Write(ref _busy, 0);
            throw;
        }
    }

    private protected override ValueTask ReleaseAsync(DbConnection connection, bool async)
    {
        Volatile.Write(ref _busy, 0);
        return default;
    }

    private protected override DbCommand RentCommand(DbConnection connection) => _kept.RentCommand(connection);

    private protected override void ReturnCommand(DbCommand command, bool failed) => _kept.ReturnCommand(command, failed);

    private protected override Exception? TranslateFailure(DbConnection connection, Exception error) => _kept.Translate(connection, error);

    /// <summary>Rolls back an open transaction and returns the connection to the pool.</summary>
    public void Dispose() => DisposeAsync(async: false).GetAwaiter().GetResult();

    /// <summary>Rolls back an open transaction and returns the connection to the pool.</summary>
    /// <returns>A task that completes when the connection is closed.</returns>
    public ValueTask DisposeAsync() => DisposeAsync(async: true);

    private async ValueTask DisposeAsync(bool async)
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        Transaction = null;
        Pool.Telemetry.SessionClosed();
        await _kept.CloseAsync(async).ConfigureAwait(false);
    }
}
