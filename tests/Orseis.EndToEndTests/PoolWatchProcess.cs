using System.Diagnostics;

namespace Orseis.EndToEndTests;

/// <summary>The PoolWatch sample running as a separate process, killed on dispose.</summary>
public sealed class PoolWatchProcess : IDisposable
{
    private readonly Process _process;

    private PoolWatchProcess(Process process) => _process = process;

    public int Id => _process.Id;

    public static PoolWatchProcess Start(params string[] args) => StartDll(BuiltProgram.Dll("samples", "Orseis.Samples.PoolWatch"), args);

    /// <summary>Starts the sample from <paramref name="dll"/> (a renamed copy, say, for a process name no other test uses).</summary>
    public static PoolWatchProcess StartDll(string dll, params string[] args) => StartProgram("dotnet", [dll, .. args]);

    /// <summary>Starts the sample through its apphost, as <c>dotnet run</c> does: the process is named after the app.</summary>
    public static PoolWatchProcess StartApphost(params string[] args) =>
        StartProgram(Path.ChangeExtension(BuiltProgram.Dll("samples", "Orseis.Samples.PoolWatch"), null), args);

    private static PoolWatchProcess StartProgram(string program, string[] args)
    {
        var info = new ProcessStartInfo(program) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (string arg in args)
            info.ArgumentList.Add(arg);
        Process process = Process.Start(info) ?? throw new InvalidOperationException($"could not start {program}");
        var ready = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        process.OutputDataReceived += (_, e) =>
        {
            if (e.Data?.StartsWith("ready ", StringComparison.Ordinal) == true)
                ready.TrySetResult(e.Data);
        };
        process.ErrorDataReceived += (_, _) => { };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        if (!ready.Task.Wait(TimeSpan.FromSeconds(30)))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException("The PoolWatch sample did not print its ready line within 30 s.");
        }

        return new PoolWatchProcess(process);
    }

    public void Dispose()
    {
        try
        {
            if (!_process.HasExited)
                _process.Kill(entireProcessTree: true);
            _process.WaitForExit(10_000);
        }
        finally
        {
            _process.Dispose();
        }
    }
}
