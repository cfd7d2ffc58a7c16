using System.Diagnostics;
using Microsoft.Diagnostics.NETCore.Client;
using Orseis.Trace.Cli;

namespace Orseis.Trace.Targets;

/// <summary>Finds, checks and connects to the process named on the command line, or starts it (<c>-- command</c>).</summary>
internal static class TargetResolver
{
    private static readonly TimeSpan ConnectLimit = TimeSpan.FromSeconds(30);

    public static async Task<Target> ConnectAsync(TargetOptions options, CancellationToken cancel)
    {
        int given = (options.ProcessId is null ? 0 : 1) + (options.Name is null ? 0 : 1) + (options.DiagnosticPort is null ? 0 : 1)
            + (options.Command.Count == 0 ? 0 : 1);
        if (given == 0)
            throw new ToolError(ExitCode.Usage, "say which process to watch: -p PID, -n NAME, --diagnostic-port PATH or -- COMMAND");
        if (given > 1)
            throw new ToolError(ExitCode.Usage, "give only one of -p, -n, --diagnostic-port and -- COMMAND");
        if (options.ProcessId is { } id)
            return Attach(id, $"process {id}");
        if (options.Name is { } name)
        {
            List<DotnetProcess> named = DotnetProcess.List().Where(p => p.IsNamed(name) && p.Id != Environment.ProcessId).ToList();
            return named.Count switch
            {
                0 => throw new ToolError(ExitCode.NameMatchesNone,
                    $"no .NET process is named '{name}' (orseis-trace ps lists them)"),
                1 => Attach(named[0].Id, $"'{name}' (process {named[0].Id})"),
                _ => throw new ToolError(ExitCode.NameMatchesSeveral,
                    $"{named.Count} .NET processes are named '{name}' ({string.Join(", ", named.Select(p => p.Id))}): give -p PID"),
            };
        }

        if (options.DiagnosticPort is { } port)
            return await ListenAsync(port, null, $"the process at diagnostic port {port}", cancel).ConfigureAwait(false);
        return await StartAsync(options.Command, cancel).ConfigureAwait(false);
    }

    private static Target Attach(int id, string description)
    {
        if (id <= 0 || !DotnetProcess.IsRunning(id))
            throw new ToolError(ExitCode.NoSuchProcess, $"no process {id} is running");
        if (!DotnetProcess.IsDotnet(id))
        {
            throw new ToolError(ExitCode.NotDotnet,
                $"process {id} is not a .NET process this user can diagnose (no diagnostic port; orseis-trace ps lists those that are)");
        }

        if (DotnetProcess.LoadedOrseis(id) == false)
            throw new ToolError(ExitCode.NoOrseis, $"{description} has not loaded Orseis: it has no pools to watch");
        return new Target(new DiagnosticsClient(id), id, description);
    }

    /// <summary>Starts <paramref name="command"/> with its runtime told to connect to a port of ours and wait there, as
    /// dotnet-trace does, so the session is on before the app's first instruction.</summary>
    private static async Task<Target> StartAsync(IReadOnlyList<string> command, CancellationToken cancel)
    {
        string port = Path.Combine(Path.GetTempPath(), $"orseis-trace-{Environment.ProcessId}-{Guid.NewGuid():N}.sock");
        // The app's own output goes to stderr: stdout is the tool's (a JSON report, a live table).
        var info = new ProcessStartInfo(command[0]) { UseShellExecute = false, RedirectStandardOutput = true };
        foreach (string arg in command.Skip(1))
            info.ArgumentList.Add(arg);
        info.Environment["DOTNET_DiagnosticPorts"] = port;
        return await ListenAsync(port, info, $"'{string.Join(' ', command)}'", cancel).ConfigureAwait(false);
    }

    private static async Task<Target> ListenAsync(string port, ProcessStartInfo? start, string description, CancellationToken cancel)
    {
        using var limit = CancellationTokenSource.CreateLinkedTokenSource(cancel);
        limit.CancelAfter(start is null ? Timeout.InfiniteTimeSpan : ConnectLimit);
        Task<DiagnosticsClientConnector> connecting;
        try
        {
            connecting = DiagnosticsClientConnector.FromDiagnosticPort(port, limit.Token);
        }
        catch (Exception e) when (e is ArgumentException or IOException or System.Net.Sockets.SocketException)
        {
            throw new ToolError(ExitCode.AttachFailed, $"cannot listen on diagnostic port '{port}': {e.Message}");
        }

        Process? child = null;
        if (start is not null)
        {
            // The listener is up once its socket file exists; the runtime gives up if it finds none.
            for (int i = 0; i < 100 && !File.Exists(port) && !connecting.IsCompleted; i++)
                await Task.Delay(20, cancel).ConfigureAwait(false);
            try
            {
                child = Process.Start(start) ?? throw new ToolError(ExitCode.AttachFailed, $"could not start {description}");
                child.OutputDataReceived += (_, e) =>
                {
                    if (e.Data is not null)
                        Console.Error.WriteLine(e.Data);
                };
                child.BeginOutputReadLine();
            }
            catch (System.ComponentModel.Win32Exception e)
            {
                throw new ToolError(ExitCode.AttachFailed, $"could not start {description}: {e.Message}");
            }
        }
        else
        {
            await Console.Error.WriteLineAsync(
                    $"orseis-trace: waiting for a process at {port} (start it with DOTNET_DiagnosticPorts={port})")
                .ConfigureAwait(false);
        }

        try
        {
            if (child is not null)
            {
                // A command that is not a .NET app never connects: its exit says so at once.
                await Task.WhenAny(connecting, child.WaitForExitAsync(limit.Token)).ConfigureAwait(false);
                if (!connecting.IsCompleted && child.HasExited)
                {
                    int code = child.ExitCode;
                    await limit.CancelAsync().ConfigureAwait(false);
                    child.Dispose();
                    throw new ToolError(ExitCode.AttachFailed,
                        $"{description} exited (code {code}) without connecting to the diagnostic port: is it a .NET app?");
                }
            }

            DiagnosticsClientConnector? connector = await connecting.ConfigureAwait(false);
            if (connector?.Instance is null)
                throw new ToolError(ExitCode.AttachFailed, $"{description} did not connect to the diagnostic port: is it a .NET app?");
            return new Target(connector.Instance, child?.Id, description, connector, child, suspended: true);
        }
        catch (Exception e) when (e is OperationCanceledException or IOException or System.Net.Sockets.SocketException
                                      or ArgumentException or ServerNotAvailableException)
        {
            if (child is not null)
            {
                if (!child.HasExited)
                    child.Kill(entireProcessTree: true);
                child.Dispose();
            }

            if (cancel.IsCancellationRequested)
                throw new ToolError(ExitCode.AttachFailed, $"stopped while waiting for {description} to connect");
            throw new ToolError(ExitCode.AttachFailed, e is OperationCanceledException
                ? $"{description} did not connect to the diagnostic port within {ConnectLimit.TotalSeconds:0} s (is it a .NET app?)"
                : $"cannot use diagnostic port '{port}': {e.Message}");
        }
    }
}
