using System.Net;
using System.Net.Sockets;

namespace Orseis.IntegrationTests.Infrastructure;

/// <summary>
/// A server on loopback that accepts every TCP connection and never says a word (a hung server, a black-holing proxy):
/// a client's connect waits for the greeting until its own timeout. Accepts for 30 s at most; disposing it closes all.
/// </summary>
internal sealed class SilentServer : IAsyncDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly List<Socket> _accepted = [];
    private readonly CancellationTokenSource _stop = new(TimeSpan.FromSeconds(30));
    private readonly Task _accepting;

    public SilentServer()
    {
        _listener.Start();
        _accepting = Task.Run(async () =>
        {
            try
            {
                while (true)
                    _accepted.Add(await _listener.AcceptSocketAsync(_stop.Token));
            }
            catch (OperationCanceledException)
            {
            }
        });
    }

    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        await _accepting;
        foreach (Socket socket in _accepted)
            socket.Dispose();
        _listener.Dispose();
        _stop.Dispose();
    }
}
