namespace Orseis.Diagnostics;

/// <summary>What Orseis records about a pool. Everything here costs nothing while no listener is attached.</summary>
public sealed class DiagnosticsOptions
{
    /// <summary>
    /// Include the command text in <c>Orseis</c> EventSource events. Off by default: SQL text can carry literals.
    /// Parameter values are never recorded.
    /// </summary>
    public bool CaptureCommandText { get; set; }

    internal void Validate()
    {
    }
}
