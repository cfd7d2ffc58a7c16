namespace Orseis;

/// <summary>The base of every error Orseis raises itself (provider errors pass through unchanged or as an inner exception).</summary>
public class OrseisException : Exception
{
    /// <summary>Creates the exception with a message.</summary>
    public OrseisException(string message) : base(message) { }

    /// <summary>Creates the exception with a message and the error that caused it.</summary>
    public OrseisException(string message, Exception? innerException) : base(message, innerException) { }
}
