using System.Diagnostics;
using Microsoft.Diagnostics.NETCore.Client;

namespace Orseis.Trace.Targets;

/// <summary>The process the tool watches: a client for its diagnostic port, and the process itself when the tool started it.</summary>
internal sealed class Target : IAsyncDisposable
{
    private readonly DiagnosticsClientConnector? _connector;
    private bool _resumed;

    public Target(DiagnosticsClient client, int? processId, string description, DiagnosticsClientConnector? connector = null,
        Process? child = null, bool suspended = false)
    {
        Client = client;
        ProcessId = processId;
        Description = description;
        _connector = connector;
        Child = child;
        _resumed = !suspended;
    }

    public DiagnosticsClient Client { get; }

    /// <summary>The process id when known (not always for a process that connected to <c>--diagnostic-port</c>).</summary>
    public int? ProcessId { get; }

    /// <summary>How to name it in messages: <c>process 1234</c>, <c>'app' (1234)</c>.</summary>
    public string Description { get; }

    /// <summary>The process the tool started (<c>-- command</c>), else null.</summary>
    public Process? Child { get; }

    /// <summary>Lets a runtime that waits at its diagnostic port run (call once the session is started).</summary>
    public void Resume()
    {
        if (_resumed)
            return;
        _resumed = true;
        try
        {
            Client.ResumeRuntime();
        }
        catch (ServerErrorException)
        {
            // The runtime was not suspended (a port configured with nosuspend): nothing to resume.
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Child is { } child)
        {
            try
            {
                if (!child.HasExited)
                    child.Kill(entireProcessTree: true);
                await child.WaitForExitAsync().ConfigureAwait(false);
            }
            catch (InvalidOperationException)
            {
            }

            child.Dispose();
        }

        if (_connector is not null)
            await _connector.DisposeAsync().ConfigureAwait(false);
    }
}
