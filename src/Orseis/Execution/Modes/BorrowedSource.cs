using System.Data;
using System.Data.Common;

namespace Orseis.Execution.Modes;

/// <summary>
/// A connection the caller owns (<see cref="Database.On"/>): Dapper code's connection, EF Core's, a connection with a
/// transaction of the caller's. Calls run on it with the database's mapping, handlers, tracing and command telemetry;
/// it is never taken from or given back to the pool, so the pool's telemetry counts no open, hold or release for it. A
/// closed connection is opened for the call and closed after it, as Dapper does; an open one stays open. One call at a
/// time: a second call while one runs (or a stream over it is unfinished) throws <see cref="SessionBusyException"/>
/// instead of reaching the provider.
/// </summary>
internal sealed class BorrowedSource(PoolContext pool, DbConnection connection, DbTransaction? transaction, string owner)
    : ConnectionSource(pool, typeof(Database))
{
    private int _busy;
    private bool _openedHere;

    public override DbTransaction? Transaction => transaction;

    // The caller's connection is in the caller's transactions: Orseis neither refuses nor enlists it.
    protected override InvalidOperationException? NotInScope(System.Transactions.Transaction ambient) => null;

    protected override async ValueTask<Lease> AcquireCoreAsync(
        System.Transactions.Transaction? ambient, bool async, bool forStream, Diagnostics.Detectors.FlowState? flow,
        CancellationToken cancellationToken)
    {
        if (Interlocked.CompareExchange(ref _busy, 1, 0) != 0)
        {
            throw new SessionBusyException(
                $"{owner} is already running a command, or a Stream over its results is still being read. A connection runs one " +
                "command at a time: finish or dispose the stream first, or make concurrent calls on the Database itself.");
        }

        try
        {
            if (connection.State == ConnectionState.Closed)
            {
                if (transaction is not null)
                {
                    throw new InvalidOperationException(
                        $"The connection of {owner} is closed, but a transaction was given with it: a transaction belongs to an open " +
                        "connection. Open the connection, begin the transaction on it, and pass both.");
                }

                if (async)
                    await connection.OpenAsync(cancellationToken).ConfigureAwait(false);
                else
                    connection.Open();
                _openedHere = true;
            }
            else if (connection.State != ConnectionState.Open)
            {
                throw new InvalidOperationException(
                    $"The connection of {owner} is {connection.State}: Orseis runs calls on an open connection, or opens a closed one.");
            }

            return new Lease(connection, Diagnostics.Detectors.HolderTable.NoHold);
        }
        catch
        {
            Volatile.Write(ref _busy, 0);
            throw;
        }
    }

    public override ValueTask ReleaseAsync(Lease lease, bool async, bool failed = false)
    {
        bool close = _openedHere;
        _openedHere = false;
        Volatile.Write(ref _busy, 0);
        if (!close)
            return default;
        return async ? new ValueTask(connection.CloseAsync()) : Close();
    }

    private ValueTask Close()
    {
        connection.Close();
        return default;
    }

    public override Exception? TranslateFailure(DbConnection failed, Exception error) =>
        ConnectionFailures.Translate(failed, error, owner, inTransaction: transaction is not null);

    /// <summary>
    /// A call abandoned while the provider still uses the connection: the connection stays the caller's (Orseis closes it
    /// only if it opened it, once the provider is done), and the next call may run as soon as this one gave up.
    /// </summary>
    public override void Abandon(Lease lease, DbCommand command, Task pending)
    {
        bool close = _openedHere;
        _openedHere = false;
        Volatile.Write(ref _busy, 0);
        pending.ContinueWith(
            static (task, state) =>
            {
                _ = task.Exception;
                var (command, connection, close) = ((DbCommand, DbConnection, bool))state!;
                command.Dispose();
                if (close)
                    connection.Close();
            },
            (command, connection, close), CancellationToken.None, TaskContinuationOptions.None, TaskScheduler.Default);
    }
}
