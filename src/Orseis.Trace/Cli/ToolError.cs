namespace Orseis.Trace.Cli;

/// <summary>A failure the tool reports as one line on stderr with its own exit code.</summary>
/// <param name="code">The exit code.</param>
/// <param name="message">The line to print, saying what was wrong.</param>
internal sealed class ToolError(ExitCode code, string message) : Exception(message)
{
    public ExitCode Code { get; } = code;
}
