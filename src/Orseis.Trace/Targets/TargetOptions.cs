namespace Orseis.Trace.Targets;

/// <summary>What the command line said about the process to watch; at most one of them.</summary>
/// <param name="ProcessId">-p, --process-id.</param>
/// <param name="Name">-n, --name.</param>
/// <param name="DiagnosticPort">--diagnostic-port: a path the process connects to (started with DOTNET_DiagnosticPorts).</param>
/// <param name="Command">What followed <c>--</c>: a command the tool starts and watches from its first instruction.</param>
internal sealed record TargetOptions(int? ProcessId, string? Name, string? DiagnosticPort, IReadOnlyList<string> Command)
{
    public bool Given => ProcessId is not null || Name is not null || DiagnosticPort is not null || Command.Count > 0;
}
