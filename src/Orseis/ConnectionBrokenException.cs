namespace Orseis;

/// <summary>
/// The connection a call ran on was closed underneath it (by the server, the network or a failed command), in any mode:
/// a connection opened for one call, a <see cref="Session"/>'s or a <see cref="ExecutionMode.ReuseConnection"/>
/// database's. The provider's exception is the inner one. Outside a transaction the next call opens a new connection;
/// inside one, every call fails until the transaction is disposed, because its work is lost (the server rolled it back).
/// </summary>
public sealed class ConnectionBrokenException : OrseisException
{
    internal ConnectionBrokenException(string message, bool inTransaction, bool statementMayHaveRun, Exception? innerException)
        : base(message, innerException)
    {
        InTransaction = inTransaction;
        StatementMayHaveRun = statementMayHaveRun;
    }

    /// <summary><see langword="true"/> when a transaction was open on the connection, so its work was lost.</summary>
    public bool InTransaction { get; }

    /// <summary>
    /// <see langword="true"/> when the connection broke while the statement was sent or ran, so whether it took effect
    /// on the server is unknown; <see langword="false"/> when it was found broken before anything was sent.
    /// </summary>
    public bool StatementMayHaveRun { get; }

    /// <summary>
    /// Set by a buffered call whose statement only reads (Execution/ReadStatement): safe to run again outside a transaction.
    /// </summary>
    internal bool CallOnlyRead { get; set; }
}
