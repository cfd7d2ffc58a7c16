namespace Orseis;

/// <summary>
/// The connection that a <see cref="Session"/> or a <see cref="ExecutionMode.ReuseConnection"/> database keeps open was
/// closed underneath it (by the server, the network or a failed command). Outside a transaction the next call opens a
/// new connection; inside one, every call fails until the transaction is disposed, because its work is lost.
/// </summary>
public sealed class ConnectionBrokenException : OrseisException
{
    internal ConnectionBrokenException(string message, bool inTransaction, Exception? innerException)
        : base(message, innerException) => InTransaction = inTransaction;

    /// <summary><see langword="true"/> when a transaction was open on the connection, so its work was lost.</summary>
    public bool InTransaction { get; }
}
