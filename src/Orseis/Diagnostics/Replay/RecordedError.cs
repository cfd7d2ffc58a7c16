namespace Orseis.Diagnostics.Replay;

/// <summary>A recorded failure as a replayed detector sees it: the type name and message the process read from it.</summary>
internal sealed class RecordedError : Exception
{
    public RecordedError()
        : this("", "")
    {
    }

    public RecordedError(string message)
        : this("", message)
    {
    }

    public RecordedError(string message, Exception innerException)
        : base(message, innerException) => TypeName = "";

    public RecordedError(string typeName, string message)
        : base(message) => TypeName = typeName;

    /// <summary>The full name of the failure's type in the recorded process.</summary>
    public string TypeName { get; }
}
