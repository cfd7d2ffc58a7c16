using System.Net.Sockets;

namespace Orseis;

/// <summary>
/// Orseis' answer to "may this failed call be run again as it is?", for a resilience pipeline of your own (a Polly
/// <c>ShouldHandle</c>, say) or to read why <see cref="OrseisOptions.Retry"/> retried a call or did not.
/// </summary>
/// <remarks>
/// A call is safe to run again when nothing of it reached the server, or when what ran only read and no transaction was
/// open: an open that failed to connect (refused, timed out connecting, the server starting or out of connections), a
/// connection found broken before anything was sent, or a buffered read (a query, a first/single row, a scalar) whose
/// connection broke outside a transaction. Never a write whose connection broke (whether it took effect is unknown),
/// never a call inside a transaction (its work is lost: run the whole unit of work again instead), never a stream
/// (<c>Stream</c>, <c>QueryMultiple</c>), never a timeout, a cancellation, an exhausted pool or an error the server
/// answered.
/// </remarks>
public static class OrseisRetry
{
    /// <summary>The <c>orseis.retry.reason</c> of an open that failed: nothing was sent.</summary>
    public const string OpenFailed = "open_failed";

    /// <summary>The <c>orseis.retry.reason</c> of a read whose connection broke outside a transaction.</summary>
    public const string ReadConnectionBroken = "read_connection_broken";

    /// <summary>
    /// The <c>orseis.retry.reason</c> of a unit of work the server rolled back for a transient reason (a deadlock victim, say).
    /// </summary>
    public const string TransactionRolledBack = "transaction_rolled_back";

    /// <summary>The <c>orseis.retry.reason</c> of a unit of work whose connection broke before its commit was sent.</summary>
    public const string TransactionConnectionBroken = "transaction_connection_broken";

    /// <summary>
    /// <see langword="true"/> when the unit of work (a transaction from its begin to its commit) that threw
    /// <paramref name="error"/> may be run again whole: the server rolled the transaction back for a reason that may not
    /// come again (<see cref="TransactionRolledBackException.IsTransient"/>: a deadlock victim, a lock wait timeout, a
    /// serialization failure), the connection was found broken before anything more was sent (nothing was committed),
    /// or an open failed to connect. Never a commit whose outcome is unknown. A connection that broke while a statement of
    /// the transaction ran is not told from one that broke during the commit by the exception alone:
    /// <see cref="Database.InTransactionAsync{T}"/> knows which, and runs the first kind again.
    /// </summary>
    /// <param name="error">What the unit of work threw.</param>
    /// <returns>Whether running the whole unit of work again is safe.</returns>
    public static bool IsSafeToRetryTransaction(Exception error)
    {
        ArgumentNullException.ThrowIfNull(error);
        return Execution.CallRetries.UnitReason(error, commitSent: true) is not null || ReasonToRetry(error) == OpenFailed;
    }

    /// <summary>
    /// <see langword="true"/> when the call that threw <paramref name="error"/> may be run again as it is: see the remarks
    /// of <see cref="OrseisRetry"/>.
    /// </summary>
    /// <param name="error">What an Orseis call threw.</param>
    /// <returns>Whether running the same call again is safe.</returns>
    public static bool IsSafeToRetry(Exception error) => ReasonToRetry(error) is not null;

    /// <summary>
    /// Why the call that threw <paramref name="error"/> may be run again (<see cref="OpenFailed"/> or
    /// <see cref="ReadConnectionBroken"/>); <see langword="null"/> when it may not.
    /// </summary>
    /// <param name="error">What an Orseis call threw.</param>
    /// <returns>The reason, or null.</returns>
    public static string? ReasonToRetry(Exception error)
    {
        ArgumentNullException.ThrowIfNull(error);
        switch (error)
        {
            case ConnectionBrokenException broken:
                if (broken.InTransaction)
                    return null;
                if (!broken.StatementMayHaveRun)
                    return OpenFailed;
                return broken.CallOnlyRead ? ReadConnectionBroken : null;
            case OrseisException or OperationCanceledException:
                return null;
            default:
                return FailedToConnect(error) ? OpenFailed : null;
        }
    }

    /// <summary>
    /// An error that only an open can raise and that says the server could not be reached or could not take the connection
    /// yet: a socket refused, timed out or unreachable anywhere in the chain, or a provider's own error that says so
    /// (<see cref="ProviderTraits.CouldNotConnect"/>: MySQL's 1042 and 1040, PostgreSQL's 57P03 and 53300, Npgsql's connect
    /// that failed: refused, reset or timed out). A provider error raised by a statement leaves its connection open or is
    /// turned into a <see cref="ConnectionBrokenException"/>, so none of these comes from a statement.
    /// </summary>
    private static bool FailedToConnect(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (e is SocketException
                {
                    SocketErrorCode: SocketError.ConnectionRefused or SocketError.HostUnreachable or SocketError.NetworkUnreachable
                        or SocketError.TryAgain or SocketError.TimedOut,
                })
            {
                return true;
            }

            if (ProviderTraits.SaysCouldNotConnect(e))
                return true;
        }

        return false;
    }
}
