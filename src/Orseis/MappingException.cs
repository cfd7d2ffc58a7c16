namespace Orseis;

/// <summary>
/// A result column could not be mapped to the requested type. The message names the column, its database type,
/// the member and the member's type; it never contains a row value.
/// </summary>
public sealed class MappingException : OrseisException
{
    internal MappingException(string message, string? column, string? member, Exception? innerException = null)
        : base(message, innerException)
    {
        Column = column;
        Member = member;
    }

    /// <summary>The result column that failed, when one did.</summary>
    public string? Column { get; }

    /// <summary>The member (property, field or constructor parameter) that failed, as <c>Type.Member</c>, when one did.</summary>
    public string? Member { get; }
}
