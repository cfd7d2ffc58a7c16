namespace Orseis;

/// <summary>
/// A call, commit or rollback did not complete within its command timeout (the call's <c>timeout</c> argument, or
/// <see cref="OrseisOptions.CommandTimeout"/>). Whether the statement took effect on the server is unknown; the connection
/// it ran on is closed rather than reused.
/// </summary>
public sealed class CommandTimeoutException : OrseisException
{
    internal CommandTimeoutException(string message, TimeSpan timeout, Exception? innerException)
        : base(message, innerException) => Timeout = timeout;

    /// <summary>The timeout that expired.</summary>
    public TimeSpan Timeout { get; }
}
