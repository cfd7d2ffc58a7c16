using System.Data.Common;

namespace Orseis;

/// <summary>
/// A transaction on a <see cref="Session"/>. Calls on the session join it until it is committed or rolled back.
/// Disposing it without committing rolls it back.
/// </summary>
public sealed class SessionTransaction : IDisposable, IAsyncDisposable
{
    private readonly Session _session;
    private readonly DbTransaction _transaction;
    private bool _ended;

    internal SessionTransaction(Session session, DbTransaction transaction)
    {
        _session = session;
        _transaction = transaction;
    }

    /// <summary>Commits the transaction.</summary>
    public void Commit() => End(commit: true, async: false, CancellationToken.None).GetAwaiter().GetResult();

    /// <summary>Commits the transaction.</summary>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>A task that completes when the commit does.</returns>
    public Task CommitAsync(CancellationToken cancellationToken = default) => End(commit: true, async: true, cancellationToken).AsTask();

    /// <summary>Rolls the transaction back.</summary>
    public void Rollback() => End(commit: false, async: false, CancellationToken.None).GetAwaiter().GetResult();

    /// <summary>Rolls the transaction back.</summary>
    /// <param name="cancellationToken">Cancels the call.</param>
    /// <returns>A task that completes when the rollback does.</returns>
    public Task RollbackAsync(CancellationToken cancellationToken = default) => End(commit: false, async: true, cancellationToken).AsTask();

    private async ValueTask End(bool commit, bool async, CancellationToken cancellationToken)
    {
        if (_ended)
            throw new InvalidOperationException("This transaction has already been committed or rolled back.");
        _ended = true;
        try
        {
            if (commit)
            {
                if (async)
                    await _transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
                else
                    _transaction.Commit();
            }
            else if (async)
            {
                await _transaction.RollbackAsync(cancellationToken).ConfigureAwait(false);
            }
            else
            {
                _transaction.Rollback();
            }
        }
        finally
        {
            await DisposeTransactionAsync(async).ConfigureAwait(false);
        }
    }

    /// <summary>Rolls back unless committed, and detaches the transaction from the session.</summary>
    public void Dispose() => DisposeTransactionAsync(async: false).GetAwaiter().GetResult();

    /// <summary>Rolls back unless committed, and detaches the transaction from the session.</summary>
    /// <returns>A task that completes when the transaction is disposed.</returns>
    public ValueTask DisposeAsync() => DisposeTransactionAsync(async: true);

    private async ValueTask DisposeTransactionAsync(bool async)
    {
        _ended = true;
        _session.EndTransaction(this);
        try
        {
            // ADO.NET transactions roll back on dispose when not committed.
            if (async)
                await _transaction.DisposeAsync().ConfigureAwait(false);
            else
                _transaction.Dispose();
        }
        catch (Exception) when (_transaction.Connection is null)
        {
            // The connection broke under the transaction: there is nothing left to roll back.
        }
    }
}
