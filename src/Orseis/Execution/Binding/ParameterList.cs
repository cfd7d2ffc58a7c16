namespace Orseis.Execution.Binding;

/// <summary>Parameters already named and expanded (the interpolated-string form builds one).</summary>
internal sealed class ParameterList : List<KeyValuePair<string, object?>>
{
    public ParameterList(int capacity) : base(capacity) { }
}
