using System.Diagnostics.Tracing;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Tracing;

namespace Orseis.Trace;

/// <summary>
/// An EventPipe session on another process that listens to the <c>Orseis</c> meter (through the runtime's
/// <c>System.Diagnostics.Metrics</c> provider, as dotnet-counters does), the runtime's and the provider's pool meters, the
/// <c>Orseis</c> EventSource and the runtime's thread-pool events.
/// </summary>
public sealed class OrseisTraceSession : IDisposable
{
    private readonly EventPipeSession _session;
    private readonly EventPipeEventSource _source;
    private readonly Thread _reader;

    /// <summary>Starts listening to process <paramref name="processId"/>; values arrive every <paramref name="interval"/>.</summary>
    /// <param name="processId">The process to attach to (it must be a .NET process the caller may diagnose).</param>
    /// <param name="interval">How often the runtime publishes metric values.</param>
    /// <param name="allEvents">Also take the open, command and release events (verbose), not only findings.</param>
    public OrseisTraceSession(int processId, TimeSpan interval, bool allEvents = false)
        : this(new DiagnosticsClient(processId), interval, allEvents)
    {
    }

    /// <summary>Starts listening through <paramref name="client"/>; values arrive every <paramref name="interval"/>.</summary>
    /// <param name="client">The client of the process's diagnostic port.</param>
    /// <param name="interval">How often the runtime publishes metric values.</param>
    /// <param name="allEvents">Also take the open, command and release events (verbose), not only findings.</param>
    public OrseisTraceSession(DiagnosticsClient client, TimeSpan interval, bool allEvents = false)
    {
        ArgumentNullException.ThrowIfNull(client);
        string sessionId = Guid.NewGuid().ToString();
        EventPipeProvider[] providers = TraceProviders.For(sessionId, interval, allEvents ? EventLevel.Verbose : EventLevel.Warning);
        _session = client.StartEventPipeSession(providers, requestRundown: false);
        _source = new EventPipeEventSource(_session.EventStream);
        var decoder = new OrseisEventDecoder(_source, sessionId);
        decoder.Metric += m => Metric?.Invoke(m);
        decoder.Finding += f => Finding?.Invoke(f);
        decoder.PoolEvent += e => PoolEvent?.Invoke(e);
        decoder.ThreadPool += t => ThreadPool?.Invoke(t);
        decoder.OtherEvent += (_, name, payload) => OtherEvent?.Invoke(name, payload);
        _reader = new Thread(() =>
        {
            try
            {
                _source.Process();
            }
            catch (Exception e) when (e is EndOfStreamException or IOException or ObjectDisposedException)
            {
            }
            finally
            {
                Ended.TrySetResult();
            }
        }) { IsBackground = true, Name = "orseis-trace reader" };
        _reader.Start();
    }

    /// <summary>Called for each published metric value of the meters the tool reads.</summary>
    public event Action<MetricValue>? Metric;

    /// <summary>Called for each detector finding.</summary>
    public event Action<FindingEvent>? Finding;

    /// <summary>Called for each open, command and release event (with <c>allEvents</c>).</summary>
    public event Action<PoolEvent>? PoolEvent;

    /// <summary>Called when the runtime changes the thread pool's worker count.</summary>
    public event Action<ThreadPoolAdjustment>? ThreadPool;

    /// <summary>Called for every other Orseis event (with <c>allEvents</c>): the event name and its payload as text.</summary>
    public event Action<string, string>? OtherEvent;

    /// <summary>Completes when the event stream ends: the session stopped or the process exited.</summary>
    public TaskCompletionSource Ended { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Stops the session and the reader.</summary>
    public void Dispose()
    {
        try
        {
            _session.Stop();
        }
        catch (Exception e) when (e is ServerNotAvailableException or TimeoutException or IOException or ServerErrorException)
        {
            // The target already exited.
        }

        _reader.Join(TimeSpan.FromSeconds(10));
        _source.Dispose();
        _session.Dispose();
    }
}
