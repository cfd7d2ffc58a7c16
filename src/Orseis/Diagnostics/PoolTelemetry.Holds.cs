using System.Data.Common;
using System.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics;

/// <summary>Holds: a connection acquired, held and released, and the facts of each for the observers.</summary>
internal sealed partial class PoolTelemetry
{
    /// <summary>
    /// The caller's stack, taken before an open is awaited, for connections the caller holds across calls (sessions,
    /// streams) while an observer needs it (the held-too-long detector). One-shot calls capture nothing: a stack per
    /// acquire is too dear.
    /// </summary>
    public StackTrace? CaptureAcquirer(bool heldAcrossCalls) =>
        heldAcrossCalls && Needs(CostlyFacts.AcquirerStack) ? CallSites.Capture() : null;

    /// <summary>
    /// A connection was opened and is now held by <paramref name="owner"/> until <see cref="Released"/>;
    /// <paramref name="acquirer"/> is where (from <see cref="CaptureAcquirer"/>). <paramref name="openedAt"/> is what
    /// <see cref="OpenCompleted"/> returned: the hold starts when the open completed, without reading the clock again, and
    /// is timed when the open was (0: nothing listened when it started). <paramref name="flow"/> is the open's
    /// <see cref="OpenStart.Flow"/>, told of the release. Returns the hold to give back to <see cref="Released"/>
    /// (<see cref="HolderTable.NoHold"/> when nothing is timed).
    /// </summary>
    public int Acquired(
        DbConnection connection, string owner, bool heldByDesign = false, StackTrace? acquirer = null, long openedAt = 0,
        FlowState? flow = null)
    {
        long inUse = TakenOf(Interlocked.Add(ref _counts, OneTaken));
        Peaks.Raise(ref _peakInUse, inUse);
        return openedAt == 0 ? HolderTable.NoHold : Holding(connection, owner, heldByDesign, acquirer, openedAt, flow);
    }

    /// <summary>
    /// <see cref="Acquired"/>'s hold, timed from <paramref name="openedAt"/>, for a connection already counted as taken (an open's,
    /// or a scope's parked one that a call took: <paramref name="keptHold"/> is then the slot it kept, its hold again).
    /// </summary>
    private int Holding(
        DbConnection connection, string owner, bool heldByDesign, StackTrace? acquirer, long openedAt, FlowState? flow,
        int keptHold = HolderTable.NoHold)
    {
        int hold = HolderTable.NoHold;
        HolderTable.Acquirer? where = acquirer is null ? null : new HolderTable.Acquirer(acquirer);
        try
        {
            // A connection held by design (ReuseConnection's shared one) is timed but never a leak suspect.
            hold = keptHold != HolderTable.NoHold
                ? _holders.Restart(keptHold, owner, where, openedAt, flow)
                : _holders.Add(connection, owner, heldByDesign, where, openedAt, flow);
        }
        catch (Exception)
        {
        }

        if (Observed)
        {
            if (_acquireObserver is { } only && !EventsOn)
            {
                // What Tell does for a list of this one observer (EventsOn: the list of the moment is the quiet one).
                try
                {
                    only.OnAcquired(new Acquire(openedAt, hold, owner, heldByDesign, where, flow));
                }
                catch (Exception)
                {
                }
            }
            else
            {
                Tell<Acquire, AcquiredStep>(_observers.Acquired, new Acquire(openedAt, hold, owner, heldByDesign, where, flow));
            }
        }

        return hold;
    }

    /// <summary>
    /// A connection went back to the pool; <paramref name="hold"/> is what <see cref="Acquired"/> returned for it. A timed
    /// hold's release is told to the observers whatever the detectors: the report's hold times come from it. Returns the
    /// time of the release when the clock was read for it, else 0.
    /// </summary>
    public long Released(DbConnection connection, int hold)
    {
        long taken = TakenOf(Interlocked.Add(ref _counts, -OneTaken));
        return _holders.TryRemove(connection, hold, out HolderTable.Holder holder) ? HoldEnded(holder, hold, taken) : 0;
    }

    /// <summary>
    /// A timed hold ended (its connection went back to the pool, or parked in a scope) with <paramref name="taken"/> left
    /// taken from the pool (parked ones included): its use time, its <c>Released</c> event (with the connections left in use,
    /// the parked ones not) and its release told to the observers. Returns the time it ended.
    /// </summary>
    private long HoldEnded(in HolderTable.Holder holder, int hold, long taken)
    {
        long now = Now();
        TimeSpan held = Elapsed(holder.Started, now);
        if (_instruments.UseTime.Enabled)
            Guard(static (self, held) => self._instruments.UseTime.Record(held.TotalSeconds, self.Tags), held);
        if (EventsOn)
        {
            long inUse = Math.Max(0, taken - Interlocked.Read(ref _parked));
            Guard(static (self, state) => OrseisEventSource.Log.Released(
                self.PoolName, state.held.TotalMilliseconds, (int)state.inUse), (held, inUse));
        }

        Tell<Release, ReleasedStep>(_observers.Released, new Release(holder, held, now, hold));
        return now;
    }
}
