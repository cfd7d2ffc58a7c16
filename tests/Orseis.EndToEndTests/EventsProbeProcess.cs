using System.Diagnostics;
using Orseis.Testing;

namespace Orseis.EndToEndTests;

/// <summary>
/// tests/Orseis.EventsProbe running as a separate process: it prints <c>ready</c>, raises every Orseis event when told
/// <c>go</c>, logs the values it passed to <see cref="LogPath"/> and prints <c>done</c>. Killed on dispose.
/// </summary>
public sealed class EventsProbeProcess : IDisposable
{
    private readonly Process _process;
    private readonly TaskCompletionSource<string> _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly System.Text.StringBuilder _errors = new();

    private EventsProbeProcess(Process process, string logPath)
    {
        _process = process;
        LogPath = logPath;
    }

    public int Id => _process.Id;

    public string LogPath { get; }

    public static EventsProbeProcess Start()
    {
        string log = Path.Combine(Path.GetTempPath(), $"orseis-events-{Guid.NewGuid():N}.jsonl");
        var info = new ProcessStartInfo("dotnet")
        {
            RedirectStandardInput = true, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
        };
        info.ArgumentList.Add(BuiltProgram.Dll("tests", "Orseis.EventsProbe"));
        info.ArgumentList.Add(log);
        Process process = Process.Start(info) ?? throw new InvalidOperationException("could not start dotnet");
        var probe = new EventsProbeProcess(process, log);
        var ready = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        process.OutputDataReceived += (_, e) =>
        {
            if (e.Data?.StartsWith("ready ", StringComparison.Ordinal) == true)
                ready.TrySetResult(e.Data);
            else if (e.Data?.StartsWith("done ", StringComparison.Ordinal) == true)
                probe._done.TrySetResult(e.Data);
        };
        process.ErrorDataReceived += (_, e) =>
        {
            lock (probe._errors)
                probe._errors.AppendLine(e.Data);
        };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        if (!ready.Task.Wait(TimeSpan.FromSeconds(30)))
        {
            probe.Dispose();
            throw new TimeoutException("The events probe did not print its ready line within 30 s.");
        }

        return probe;
    }

    /// <summary>Tells the probe to run its workload and waits until it has written its log.</summary>
    public void RunWorkload()
    {
        _process.StandardInput.WriteLine("go");
        _process.StandardInput.Flush();
        if (!_done.Task.Wait(TimeSpan.FromSeconds(60)))
        {
            string errors;
            lock (_errors)
                errors = _errors.ToString();
            throw new TimeoutException($"The events probe did not finish within 60 s (exited: {_process.HasExited}). Its errors: {errors}");
        }
    }

    public void Dispose()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.StandardInput.WriteLine("exit");
                _process.StandardInput.Flush();
                if (!_process.WaitForExit(5_000))
                    _process.Kill(entireProcessTree: true);
            }

            _process.WaitForExit(10_000);
        }
        catch (IOException)
        {
            // The probe already closed its input.
        }
        finally
        {
            _process.Dispose();
            File.Delete(LogPath);
        }
    }
}

/// <summary>Where a program of this repository was built: same configuration and framework as this test assembly.</summary>
internal static class BuiltProgram
{
    public static string Dll(string folder, string project)
    {
        var here = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar));
        string tfm = here.Name;
        string configuration = here.Parent!.Name;
        string dll = Path.Combine(RepositoryRoot.Find(), folder, project, "bin", configuration, tfm, project + ".dll");
        return File.Exists(dll) ? dll : throw new FileNotFoundException($"Build {project} first: {dll} is missing.", dll);
    }
}
