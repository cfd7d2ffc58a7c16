namespace Orseis;

/// <summary>
/// A <see cref="Session"/> was used by a second call while a first one (or an unfinished stream) still had its
/// connection. A session is one connection and runs one command at a time.
/// </summary>
public sealed class SessionBusyException : OrseisException
{
    internal SessionBusyException(string message) : base(message) { }
}
