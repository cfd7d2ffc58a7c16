using System.Data.Common;
using System.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics;

/// <summary>
/// Connections parked by <see cref="ConnectionScope"/>s between back-to-back calls: a parked connection is not held (its
/// hold ends as it parks, a new one starts when a call takes it), and is counted apart, with the time it sat parked.
/// </summary>
/// <remarks>
/// A parked connection stays taken from the pool: <c>_inUse</c> counts the connections taken (held by calls or parked) and
/// changes only when one is opened or goes back to the pool, so a call that takes a parked connection or parks one moves
/// one count, <c>_parked</c>; <see cref="InUse"/> is the difference, exact during a call too (a report read then counts the
/// connection in use, as it is). The pool's own figures (demand, the peak) count a parked
/// connection as taken: no other caller can have it. Reuses are counted by each scope and told here when its connection
/// goes back to the pool or the scope ends (<see cref="ScopeReused"/>).
/// <para>
/// An untimed park (no detector, nothing listening) is not counted in <c>_parked</c> but on the connection's holder
/// (<see cref="ScopeConnection.UntimedParked"/>), written by whoever holds the connection (the call that parks it, the call,
/// sweep or end that takes it out of the slot with the slot's own compare-exchange), so a reused call makes no locked
/// instruction on a field every call of the pool writes (two a call cost about 2 % of it: docs/results/scopes/2026-11-30e-scope-cycles.md).
/// The parked count is <c>_parked</c> plus the flags of the holders listed here (<see cref="ScopeOpened"/> to
/// <see cref="ScopeClosed"/>, while their connection is taken from the pool): exact whenever read, during a call too.
/// </para>
/// </remarks>
internal sealed partial class PoolTelemetry
{
    private readonly Lock _scopeHeldLock = new();
    private ScopeConnection?[] _scopeHeld = new ScopeConnection?[4]; // the holders listed, by index; null where free
    private int _scopeHeldTop; // entries from this index on were never used
    private readonly Stack<int> _scopeHeldFree = new(); // freed indexes below _scopeHeldTop
    private long _parked;
    private long _scopeReuses;
    private long _parkedTicks;

    /// <summary>Connections parked in scopes now.</summary>
    public long ParkedNow => Math.Max(0, ParkedSum());

    /// <summary><c>_parked</c> plus the untimed parks on the listed holders.</summary>
    private long ParkedSum()
    {
        long parked = Interlocked.Read(ref _parked);
        ScopeConnection?[] held = Volatile.Read(ref _scopeHeld);
        int top = Math.Min(Volatile.Read(ref _scopeHeldTop), held.Length);
        for (int i = 0; i < top; i++)
        {
            if (Volatile.Read(ref held[i]) is { } holder)
                parked += Volatile.Read(ref holder.UntimedParked);
        }

        return parked;
    }

    /// <summary>
    /// A scope's call opened a connection (<paramref name="holder"/>'s): listed until it goes back to the pool
    /// (<see cref="ScopeClosed"/>), so its untimed parks count. Its flag is 0 now and when it leaves.
    /// </summary>
    public void ScopeOpened(ScopeConnection holder)
    {
        lock (_scopeHeldLock)
        {
            int index = _scopeHeldFree.Count != 0 ? _scopeHeldFree.Pop() : _scopeHeldTop;
            ScopeConnection?[] held = _scopeHeld;
            if (index == held.Length)
            {
                // Readers of the old array see the holders listed before (their flags are the same objects') and miss
                // only those listed after, whose flags are 0 until their first park.
                var grown = new ScopeConnection?[held.Length * 2];
                Array.Copy(held, grown, held.Length);
                Volatile.Write(ref _scopeHeld, grown);
                held = grown;
            }

            Volatile.Write(ref held[index], holder);
            holder.ListedAt = index;
            if (index == _scopeHeldTop)
                Volatile.Write(ref _scopeHeldTop, index + 1);
        }
    }

    /// <summary><paramref name="holder"/>'s connection went back to the pool: no longer listed (its flag is 0).</summary>
    public void ScopeClosed(ScopeConnection holder)
    {
        lock (_scopeHeldLock)
        {
            int index = holder.ListedAt;
            if (index < 0)
                return;
            holder.ListedAt = -1;
            Volatile.Write(ref _scopeHeld[index], null);
            _scopeHeldFree.Push(index);
        }
    }

    /// <summary>
    /// A call ended and its scope parks <paramref name="connection"/>: the call's hold ends (its use time, its
    /// <c>Released</c> event, which out-of-process readers count holds and connections in use by, and its release told to
    /// the observers). Returns when it parked (a timestamp, the hold's end when its clock was read) while the pool is
    /// timed, else 0.
    /// </summary>
    public long Parked(DbConnection connection, int hold)
    {
        Interlocked.Increment(ref _parked);
        long now = hold != HolderTable.NoHold && _holders.TryRemove(connection, hold, out HolderTable.Holder holder)
            ? HoldEnded(holder, hold, Interlocked.Read(ref _inUse))
            : 0;
        return now != 0 || !ParkTimed ? now : Now();
    }

    /// <summary>
    /// <see cref="Parked"/> for an untimed hold (<see cref="HolderTable.NoHold"/>): nothing to end but the count, on
    /// <paramref name="holder"/> (which the caller holds) unless the park is timed.
    /// </summary>
    public long ParkedUntimed(ScopeConnection holder)
    {
        if (ParkTimed)
        {
            Interlocked.Increment(ref _parked);
            return Now();
        }

        // Published by the slot's compare-exchange that parks the holder, which follows.
        Volatile.Write(ref holder.UntimedParked, 1);
        return 0;
    }

    /// <summary>
    /// A park counted by <see cref="Parked"/> or <see cref="ParkedUntimed"/> did not happen (another connection was parked
    /// first, or the scope ended): the connection goes back to the pool through <see cref="Released"/>, its hold ended already.
    /// </summary>
    public void ParkRefused(ScopeConnection holder) => Unpark(holder);

    /// <summary>A parked connection is parked no more: its holder's flag, or <c>_parked</c>, whichever counted it.</summary>
    private void Unpark(ScopeConnection holder)
    {
        if (holder.UntimedParked != 0)
            Volatile.Write(ref holder.UntimedParked, 0);
        else
            Interlocked.Decrement(ref _parked);
    }

    /// <summary>
    /// A call of a scope took its parked connection (<paramref name="holder"/>'s, parked at <paramref name="parkedAt"/>) instead of
    /// opening one; its hold starts now. Returns the hold, as <see cref="Acquired"/> does.
    /// </summary>
    public int Unparked(ScopeConnection holder, string owner, StackTrace? acquirer, long parkedAt)
    {
        if (OrseisMetrics.ScopeReuses.Enabled)
            Guard(static (self, _) => OrseisMetrics.ScopeReuses.Add(1, self.Tags), 0);
        if (parkedAt == 0)
        {
            // Parked untimed: the hold is untimed too (Acquired's first steps, without its call).
            Unpark(holder);
            return HolderTable.NoHold;
        }

        Unpark(holder);
        long now = ParkEnded(parkedAt);
        return Holding(holder.Connection, owner, heldByDesign: false, acquirer, openedAt: now, flow: null);
    }

    /// <summary>A parked connection went back to the pool (its scope ended, or it sat idle): see <see cref="ParkEnded"/>.</summary>
    public void ParkGivenBack(ScopeConnection holder, long parkedAt)
    {
        Unpark(holder);
        ParkEnded(parkedAt);
        Interlocked.Decrement(ref _inUse);
    }

    /// <summary>Calls a scope served by its parked connection, told by the scope (<see cref="ScopeSlot"/>) in a batch.</summary>
    public void ScopeReused(long calls) => Interlocked.Add(ref _scopeReuses, calls);

    /// <summary>
    /// A parked connection left its parking (taken by a call, or given back to the pool). <paramref name="parkedAt"/> is the
    /// time it parked, 0 when the pool was not timed then (nothing to record). Returns the time now, 0 when not read.
    /// </summary>
    private long ParkEnded(long parkedAt)
    {
        if (parkedAt == 0)
            return 0;
        long now = Now();
        long parked = now - parkedAt;
        Interlocked.Add(ref _parkedTicks, parked);
        if (OrseisMetrics.ParkedTime.Enabled)
        {
            double seconds = (double)parked / _time.TimestampFrequency;
            Guard(static (self, seconds) => OrseisMetrics.ParkedTime.Record(seconds, self.Tags), seconds);
        }

        return now;
    }

    /// <summary>
    /// Whether a park reads the clock: a detector is on, or someone listens to what a park's time feeds (the events, the next
    /// hold's use time, the parked time). Fewer questions than <see cref="Timed"/>, which every call of a scope would ask.
    /// </summary>
    private bool ParkTimed =>
        _detectors != FindingKind.None || EventsOn || _instruments.UseTime.Enabled || OrseisMetrics.ParkedTime.Enabled;

    /// <summary>Calls that took a scope's parked connection instead of opening one, as the scopes told them.</summary>
    private long ScopeReuses => Interlocked.Read(ref _scopeReuses);

    /// <summary>The time connections sat parked in scopes, all together, while timed; null when nothing was.</summary>
    private TimeSpan? ParkedTime => Interlocked.Read(ref _parkedTicks) is var ticks && (ticks > 0 || ParkTimed)
        ? TimeSpan.FromSeconds((double)ticks / _time.TimestampFrequency)
        : null;

    /// <summary>Whether steps read the clock now: a detector is on or a listener wants timings.</summary>
    public bool IsTimed => Timed;
}
