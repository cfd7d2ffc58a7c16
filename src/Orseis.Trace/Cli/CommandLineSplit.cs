namespace Orseis.Trace.Cli;

/// <summary>Everything after the first <c>--</c> is the command to start, never parsed as the tool's own options.</summary>
internal static class CommandLineSplit
{
    public static (string[] Tool, string[] Command) Split(string[] args)
    {
        int dashes = Array.IndexOf(args, "--");
        return dashes < 0 ? (args, []) : (args[..dashes], args[(dashes + 1)..]);
    }
}
