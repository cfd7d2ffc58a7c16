namespace Orseis;

/// <summary>
/// A call, commit or rollback did not complete within its command timeout (the call's <c>timeout</c> argument, or
/// <see cref="OrseisOptions.CommandTimeout"/>). Whether the statement took effect on the server is unknown.
/// </summary>
/// <remarks>
/// What happens to the connection depends on who stopped the statement. When the provider stopped it (every provider
/// Orseis knows cancels a timed-out statement on the server: MySqlConnector and MySql.Data with <c>KILL QUERY</c>, Npgsql
/// with a cancel request, SqlClient with an attention), the connection stays in use: a session or ReuseConnection
/// database keeps it, and an open transaction lives on as the server decides: MariaDB and MySQL end only the statement,
/// PostgreSQL aborts the transaction (the next call and the commit then throw <see cref="TransactionRolledBackException"/>).
/// MySql.Data closes the connection as it stops the statement, at times only just after the call returned: a transaction
/// open on it is lost, which the message says when the connection was already closed, and the next call always does
/// (<see cref="ConnectionBrokenException"/> until the transaction is disposed).
/// When the provider did not stop within a second of the timeout and Orseis abandoned the call, the connection is closed
/// once the provider lets go of it, which rolls back an open transaction, and the session opens a new one.
/// A commit that times out always closes the connection: see <see cref="SessionTransaction"/>.
/// </remarks>
public sealed class CommandTimeoutException : OrseisException
{
    internal CommandTimeoutException(string message, TimeSpan timeout, Exception? innerException)
        : base(message, innerException) => Timeout = timeout;

    /// <summary>The timeout that expired.</summary>
    public TimeSpan Timeout { get; }
}
