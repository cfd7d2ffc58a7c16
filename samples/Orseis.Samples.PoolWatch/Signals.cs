using System.Runtime.InteropServices;

/// <summary>Lets <c>kill -INT</c> reach the sample when a shell started it in the background.</summary>
internal static class Signals
{
    private const int SigInt = 2; // the same number on Linux and macOS
    private const nint SigDfl = 0;
    private const nint SigIgn = 1;

    // A shell without job control (a script, `sh -c`, CI) starts a background command (`cmd &`) with SIGINT ignored,
    // as POSIX asks, and .NET keeps an ignored signal ignored: `kill -INT` would then do nothing at all. Put SIGINT
    // back to its default before the runtime's handler is installed, so it stops the sample as Ctrl+C does.
    public static void HearSigIntInBackground()
    {
        if (OperatingSystem.IsWindows())
            return;
        try
        {
            // struct sigaction starts with the handler on Linux and macOS; 256 bytes hold the whole struct on both.
            var current = new byte[256];
            if (SigAction(SigInt, null, current) == 0 && MemoryMarshal.Read<nint>(current) == SigIgn)
                _ = Signal(SigInt, SigDfl);
        }
        catch (Exception e) when (e is DllNotFoundException or EntryPointNotFoundException)
        {
            // A C library not found as "libc": SIGINT stays as the shell left it; Ctrl+C and kill -TERM still work.
        }
    }

    [DllImport("libc", EntryPoint = "sigaction")]
    private static extern int SigAction(int signal, byte[]? action, byte[] oldAction);

    [DllImport("libc", EntryPoint = "signal")]
    private static extern nint Signal(int signal, nint handler);
}
