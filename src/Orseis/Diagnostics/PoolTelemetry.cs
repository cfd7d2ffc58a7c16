using System.Diagnostics;

namespace Orseis.Diagnostics;

/// <summary>
/// The one small recorder every step of a call reports to. Each method first checks whether anybody listens and
/// returns at once (no clock read, no allocation) when nobody does.
/// </summary>
internal sealed class PoolTelemetry
{
    private readonly DiagnosticsOptions _options;

    public PoolTelemetry(string poolName, string systemName, DiagnosticsOptions options)
    {
        PoolName = poolName;
        SystemName = systemName;
        _options = options;
    }

    public string PoolName { get; }

    public string SystemName { get; }

    private static bool Listening => OrseisEventSource.Log.IsEnabled();

    public long OpenStarting()
    {
        if (!Listening)
            return 0;
        OrseisEventSource.Log.OpenStart(PoolName);
        return Stopwatch.GetTimestamp();
    }

    public void OpenCompleted(long started, Exception? error)
    {
        if (started == 0 || !Listening)
            return;
        OrseisEventSource.Log.OpenStop(PoolName, Stopwatch.GetElapsedTime(started).TotalMilliseconds, error is null);
    }

    public long CommandStarting(string sql)
    {
        if (!Listening)
            return 0;
        OrseisEventSource.Log.CommandStart(PoolName, _options.CaptureCommandText ? sql : "");
        return Stopwatch.GetTimestamp();
    }

    public void CommandCompleted(long started, Exception? error)
    {
        if (started == 0 || !Listening)
            return;
        OrseisEventSource.Log.CommandStop(PoolName, Stopwatch.GetElapsedTime(started).TotalMilliseconds, error is null);
    }

    public long Acquired() => 0;

    public void Released(long acquired)
    {
        _ = acquired;
    }

    public long ReuseWaitStarting() => 0;

    public void ReuseWaitCompleted(long waitStarted)
    {
        _ = waitStarted;
    }
}
