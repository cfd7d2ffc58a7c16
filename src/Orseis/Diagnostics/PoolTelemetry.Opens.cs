using System.Data.Common;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics;

/// <summary>Opens: a caller entering Open, and the open completing or failing, with the facts the observers hear of each.</summary>
internal sealed partial class PoolTelemetry
{
    /// <summary>How long a first wave of connects is followed at most (<see cref="ColdStarts"/>).</summary>
    private static readonly TimeSpan FirstWaveLimit = TimeSpan.FromSeconds(30);

    /// <summary>
    /// A caller enters Open. <paramref name="flow"/> is the caller's flow when its entry point read it already
    /// (<see cref="EnterFlow"/>); null to read it here.
    /// </summary>
    public OpenStart OpenStarting(bool async, FlowState? flow = null)
    {
        long counts = Interlocked.Increment(ref _counts); // both counts at one instant
        long pending = PendingOf(counts);
        long inUse = TakenOf(counts);
        long demand = inUse + pending;
        Peaks.Raise(ref _peakPending, pending);
        Peaks.Raise(ref _peakDemand, demand);
        if (!Timed)
            return default;
        long now = Now();
        long queuedEntries = MaxPoolSize is { } max && demand > max
            ? Interlocked.Increment(ref _queuedEntries)
            : Interlocked.Read(ref _queuedEntries);
        bool firstWave = Needs(CostlyFacts.FirstWave) && _waves.InFirstWave(now, _time, FirstWaveLimit);
        var start = new OpenStart(
            now, (int)inUse, (int)demand, ProviderPool?.PhysicalConnects ?? -1, ProviderPool?.CreateSeconds ?? 0, async,
            Needs(CostlyFacts.Flow) ? flow ?? CurrentFlow() : null, queuedEntries, firstWave, AfterLoss: firstWave && _waves.AfterLoss);
        if (EventsOn)
            Guard(static (self, pending) => OrseisEventSource.Log.OpenStart(self.PoolName, (int)self.InUse, (int)pending), pending);
        if (Observed)
            Tell<OpenStart, OpenStartingStep>(_observers.OpenStarting, start);
        return start;
    }

    /// <summary>
    /// An open completed with <paramref name="connection"/>. Returns when (a timestamp, for <see cref="Acquired"/>), or 0
    /// when nothing is timed.
    /// </summary>
    public long OpenCompleted(in OpenStart start, DbConnection? connection = null)
    {
        long pending = PendingOf(Interlocked.Decrement(ref _counts));
        Interlocked.Increment(ref _opens);
        if (OrseisMetrics.Opens.Enabled)
            Guard(static (self, _) => OrseisMetrics.Opens.Add(1, self.Tags), 0);
        if (start.Started == 0)
            return 0;
        long now = Now();
        TimeSpan elapsed = Elapsed(start.Started, now);
        if (_instruments.WaitTime.Enabled || EventsOn)
            OpenTimed(elapsed, null, pending); // a call only while something listens (detectors run without listeners)
        if (Observed)
        {
            Tell<CompletedOpen, OpenCompletedStep>(_observers.OpenCompleted, Completed(start, elapsed, connection, now));
        }

        return now;
    }

    /// <summary>
    /// An open failed, was cancelled or was abandoned, as <paramref name="failure"/> reads it. Returns what to throw
    /// instead for a timeout of the open (waiting for the pool, or a connect that never completed): a
    /// <see cref="PoolExhaustedException"/> that says which; null for any other failure. A failure to connect begins a new
    /// first wave of connects (<see cref="ConnectWaves"/>): the pool's connections may be gone too.
    /// </summary>
    public PoolExhaustedException? OpenFailed(in OpenStart start, in OpenFailure failure)
    {
        long pending = PendingOf(Interlocked.Decrement(ref _counts));
        if (start.Started != 0)
            OpenTimed(_time.GetElapsedTime(start.Started), failure.Error, pending);
        if (failure.FailedToConnect)
            _waves.ConnectionsLost();
        LostConnect lost = _answered.Lost(start, failure, _time);
        PoolExhaustedException? exhausted = failure.Timeout == OpenTimeout.None ? null : Exhausted(failure, lost);
        if (Observed)
        {
            Tell<FailedOpen, OpenFailedStep>(_observers.OpenFailed, new FailedOpen(start, failure, exhausted, lost));
        }

        return exhausted;
    }

    /// <summary>The open's time on the meter and the EventSource; <paramref name="error"/> is null when it succeeded.</summary>
    private void OpenTimed(TimeSpan elapsed, Exception? error, long pending)
    {
        if (_instruments.WaitTime.Enabled)
        {
            Guard(static (self, state) => self._instruments.WaitTime.Record(
                state.elapsed.TotalSeconds, state.error is null ? self.Tags : WithError(self.Tags, state.error)), (elapsed, error));
        }

        if (EventsOn)
        {
            Guard(static (self, state) => OrseisEventSource.Log.OpenStop(
                self.PoolName, state.elapsed.TotalMilliseconds, state.error is null, (int)self.InUse, (int)state.pending),
                (elapsed, error, pending));
        }
    }

    /// <summary>The facts of an open that completed at <paramref name="now"/>, recorded once for every observer.</summary>
    private CompletedOpen Completed(in OpenStart start, TimeSpan elapsed, DbConnection? connection, long now)
    {
        // The provider's meter counts physical connects (and times them); without one, a server-side connection id
        // never seen before says this open made a new connection.
        long connects = start.PhysicalConnects >= 0 && ProviderPool?.PhysicalConnects is { } connectsNow
            ? connectsNow - start.PhysicalConnects
            : _identities is not null && connection is not null && IsNewConnection(connection) ? 1 : 0;
        double createMs = connects <= 0 ? 0
            : ProviderPool is { } meter ? (meter.CreateSeconds - start.CreateSeconds) * 1000
            : elapsed.TotalMilliseconds;
        bool othersQueued = Interlocked.Read(ref _queuedEntries) != start.QueuedEntries;
        var outcome = new OpenOutcome(elapsed, connects, createMs, start.Queued(MaxPoolSize), othersQueued);
        bool afterFirstWave = _waves.After(start.Started);
        if (connects > 0)
        {
            _waves.Connected(now);
            _answered.Completed(now); // an open that connected: never a warm call
        }
        // How late the thread pool ran work during this open, read only for an open slow enough to judge. The probe runs
        // on the system clock: a pool on another clock (a test's fake one) cannot place its open in the probe's history.
        TimeSpan threadPoolDelay = elapsed > _options.SlowOpenFloor && Needs(CostlyFacts.ThreadPoolDelay)
                                   && _options.TimeProvider == TimeProvider.System
            ? ThreadPoolProbe.DelayWithin(elapsed)
            : TimeSpan.Zero;
        return new CompletedOpen(start, outcome, now, afterFirstWave, threadPoolDelay);
    }

    /// <summary>Whether <paramref name="connection"/> is a new server connection; false when its id cannot be read.</summary>
    private bool IsNewConnection(DbConnection connection)
    {
        try
        {
            return _identities?.IsNew(connection) == true;
        }
        catch (Exception)
        {
            return false;
        }
    }

    /// <summary>A timeout of the open: counted, and explained as held connections or connects that never completed.</summary>
    private PoolExhaustedException Exhausted(in OpenFailure failure, LostConnect lost)
    {
        Interlocked.Increment(ref _timeouts);
        if (_instruments.Timeouts.Enabled)
            Guard(static (self, _) => self._instruments.Timeouts.Add(1, self.Tags), 0);
        ProviderPool?.Refresh();
        return PoolExhaustion.Explain(
            failure.Error, failure.Timeout, PoolName, MaxPoolSize, (int)InUse, (int)ParkedNow, (int)Pending + 1, ProviderPool?.Idle,
            _holders.Longest(), lost);
    }
}
