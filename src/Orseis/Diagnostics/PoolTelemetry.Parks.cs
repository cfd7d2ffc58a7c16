using System.Data.Common;
using System.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics;

/// <summary>
/// Connections parked by <see cref="ConnectionScope"/>s between back-to-back calls: a parked connection is not held (its
/// hold ends as it parks, a new one starts when a call takes it), and is counted apart, with the time it sat parked.
/// </summary>
/// <remarks>
/// <para>
/// A parked connection stays taken from the pool: <c>_counts</c>' high half counts the connections taken (held by calls or
/// parked) and changes only when one is opened or goes back to the pool; <see cref="InUse"/> is that less the parked ones,
/// exact during a call too (a report read then counts the connection in use, as it is). The pool's own figures (demand, the
/// peak) count a parked connection as taken: no other caller can have it. Reuses are counted by each scope and told here
/// when its connection goes back to the pool or the scope ends (<see cref="ScopeReused"/>).
/// </para>
/// <para>
/// A park is counted one of two ways, chosen as it parks and kept on the connection's holder
/// (<see cref="Execution.Scopes.ScopeConnection.ParkCounted"/>), so the take, the sweep or the end that takes it out moves
/// what its park moved: in <c>_parked</c> (a locked increment at the park, a decrement at the take), or, in a slot listed
/// here (<see cref="ListSlot"/>: a scope whose connection was reused <see cref="Execution.Scopes.ScopeSlot.ListEvery"/>
/// times), by the slot's own state, which its compare-exchanges move already: a reader adds the listed slots holding such a
/// park (<see cref="ParkedRaw"/>). A busy scope's reused call then moves no shared count; a scope of a few calls is never
/// listed and costs what it did.
/// </para>
/// </remarks>
internal sealed partial class PoolTelemetry
{
    private long _parked; // parks counted here (ParkCounted); those of listed slots are read from the slots
    private long _scopeReuses;
    private long _parkedTicks;
    private readonly Lock _listedLock = new();
    private Execution.Scopes.ScopeSlot?[] _listed = [];
    private int _listedCount;
    private int _listVersion; // even while the list stands still, odd while ListSlot or UnlistSlot changes it (under the lock)

    /// <summary>Connections parked in scopes now.</summary>
    public long ParkedNow => Math.Max(0, ParkedRaw);

    /// <summary>
    /// Connections parked in scopes now, unclamped: those counted in <c>_parked</c> and those parked uncounted in listed
    /// slots. The listed slots are read between two reads of <c>_parked</c>, again while it moved (a park leaving a listed
    /// slot's state for the count, or back, as the slot is listed or unlisted), so a connection is not seen twice; and
    /// without the list's lock, again while the list changed (its version), under the lock after a few tries.
    /// </summary>
    internal long ParkedRaw
    {
        get
        {
            if (Volatile.Read(ref _listedCount) == 0)
                return Interlocked.Read(ref _parked);
            for (int attempt = 0; attempt < 4; attempt++)
            {
                int version = Volatile.Read(ref _listVersion);
                if ((version & 1) != 0)
                {
                    Thread.SpinWait(4);
                    continue;
                }

                // Interlocked.Read is a full fence: the slots are read after the version and before its second read.
                long before = Interlocked.Read(ref _parked);
                long uncounted = CountUncounted(Volatile.Read(ref _listed), Volatile.Read(ref _listedCount));
                long after = Interlocked.Read(ref _parked);
                if (after == before && Volatile.Read(ref _listVersion) == version)
                    return after + uncounted;
            }

            lock (_listedLock)
            {
                for (int attempt = 0; ; attempt++)
                {
                    long before = Interlocked.Read(ref _parked);
                    long uncounted = CountUncounted(_listed, _listedCount);
                    long after = Interlocked.Read(ref _parked);
                    if (after == before || attempt == 3)
                        return after + uncounted;
                }
            }
        }
    }

    private static long CountUncounted(Execution.Scopes.ScopeSlot?[] listed, int count)
    {
        long uncounted = 0;
        count = Math.Min(count, listed.Length);
        for (int i = 0; i < count; i++)
        {
            if (Volatile.Read(ref listed[i]) is { HoldsUncountedPark: true })
                uncounted++;
        }

        return uncounted;
    }

    /// <summary>Slots listed now (<see cref="ListSlot"/>): for tests.</summary>
    internal int ListedSlots => Volatile.Read(ref _listedCount);

    /// <summary>
    /// Lists <paramref name="slot"/>: its parks from now on are counted by its state (<see cref="ParkedRaw"/>) until
    /// <see cref="UnlistSlot"/>. A slot whose scope ended meanwhile is not kept.
    /// </summary>
    public void ListSlot(Execution.Scopes.ScopeSlot slot)
    {
        lock (_listedLock)
        {
            if (slot.ListedIndex >= 0)
                return;
            Interlocked.Increment(ref _listVersion); // odd: readers without the lock read again
            if (_listedCount == _listed.Length)
            {
                Execution.Scopes.ScopeSlot?[] grown = new Execution.Scopes.ScopeSlot?[Math.Max(4, _listed.Length * 2)];
                Array.Copy(_listed, grown, _listedCount);
                Volatile.Write(ref _listed, grown);
            }

            slot.ListedIndex = _listedCount;
            Volatile.Write(ref _listed[_listedCount], slot);
            Volatile.Write(ref _listedCount, _listedCount + 1);
            slot.MarkListed(true);
            if (slot.Ended)
                RemoveListed(slot); // the end may have looked before the slot was listed: it holds nothing parked now
            Volatile.Write(ref _listVersion, _listVersion + 1);
        }
    }

    /// <summary>
    /// Unlists <paramref name="slot"/> (its scope ended, or its connection went back idle): its next parks are counted in
    /// <c>_parked</c>. Returns whether it was listed; then the caller takes out a park the slot's state still holds uncounted
    /// (one that raced the unlisting), which no reader sees any more.
    /// </summary>
    public bool UnlistSlot(Execution.Scopes.ScopeSlot slot)
    {
        lock (_listedLock)
        {
            if (slot.ListedIndex < 0)
                return false;
            Interlocked.Increment(ref _listVersion);
            RemoveListed(slot);
            Volatile.Write(ref _listVersion, _listVersion + 1);
            return true;
        }
    }

    private void RemoveListed(Execution.Scopes.ScopeSlot slot)
    {
        slot.MarkListed(false); // a full fence: a park after it counts itself; the caller looks at one before it
        int index = slot.ListedIndex;
        int last = _listedCount - 1;
        Execution.Scopes.ScopeSlot moved = _listed[last]!;
        Volatile.Write(ref _listed[index], moved);
        moved.ListedIndex = index;
        Volatile.Write(ref _listed[last], null);
        slot.ListedIndex = -1;
        Volatile.Write(ref _listedCount, last);
    }

    /// <summary>
    /// A call ended and its scope parks <paramref name="connection"/>: the call's hold ends (its use time, its
    /// <c>Released</c> event, which out-of-process readers count holds and connections in use by, and its release told to
    /// the observers). Returns when it parked (a timestamp, the hold's end when its clock was read) while the pool is
    /// timed, else 0. <paramref name="counted"/>: whether the park is counted here, not by a listed slot's state.
    /// </summary>
    public long Parked(DbConnection connection, int hold, bool counted)
    {
        if (counted)
            Interlocked.Increment(ref _parked);
        long now = hold != HolderTable.NoHold && _holders.TryRemove(connection, hold, out HolderTable.Holder holder)
            ? HoldEnded(holder, hold, TakenOf(Interlocked.Read(ref _counts)))
            : 0;
        return now != 0 || !ParkTimed ? now : Now();
    }

    /// <summary><see cref="Parked"/> for an untimed hold (<see cref="HolderTable.NoHold"/>), counted here: nothing else to end.</summary>
    public long ParkedUntimed()
    {
        Interlocked.Increment(ref _parked);
        return ParkTimed ? Now() : 0;
    }

    /// <summary><see cref="Parked"/> for an untimed hold in a listed slot, whose state counts the park: nothing to end.</summary>
    public long ParkedUncounted() => ParkTimed ? Now() : 0;

    /// <summary>
    /// A park of a listed slot, uncounted, found the slot unlisted after it parked, took its connection back out and parks
    /// it again counted here (<see cref="Execution.Scopes.ScopeConnection.ParkCounted"/>).
    /// </summary>
    public void ParkRecounted() => Interlocked.Increment(ref _parked);

    /// <summary>
    /// A park counted by <see cref="Parked"/> or <see cref="ParkedUntimed"/> did not happen (another connection was parked
    /// first, or the scope ended): the connection goes back to the pool through <see cref="Released"/>, its hold ended already.
    /// Only for a park counted here.
    /// </summary>
    public void ParkRefused() => Interlocked.Decrement(ref _parked);

    /// <summary>
    /// A call of a scope took its parked <paramref name="connection"/> (parked at <paramref name="parkedAt"/>) instead of
    /// opening one; its hold starts now. Returns the hold, as <see cref="Acquired"/> does. <paramref name="counted"/>: whether
    /// its park was counted here (<see cref="Parked"/>).
    /// </summary>
    public int Unparked(DbConnection connection, string owner, StackTrace? acquirer, long parkedAt, bool counted)
    {
        if (OrseisMetrics.ScopeReuses.Enabled)
            Guard(static (self, _) => OrseisMetrics.ScopeReuses.Add(1, self.Tags), 0);
        if (parkedAt == 0)
        {
            // Parked untimed: the hold is untimed too (Acquired's first steps, without its call).
            if (counted)
                Interlocked.Decrement(ref _parked);
            return HolderTable.NoHold;
        }

        long now = ParkEnded(parkedAt, counted);
        return Holding(connection, owner, heldByDesign: false, acquirer, openedAt: now, flow: null);
    }

    /// <summary>A parked connection went back to the pool (its scope ended, or it sat idle): see <see cref="ParkEnded"/>.</summary>
    public void ParkGivenBack(long parkedAt, bool counted)
    {
        ParkEnded(parkedAt, counted);
        Interlocked.Add(ref _counts, -OneTaken);
    }

    /// <summary>Calls a scope served by its parked connection, told by the scope (<see cref="ScopeSlot"/>) in a batch.</summary>
    public void ScopeReused(long calls) => Interlocked.Add(ref _scopeReuses, calls);

    /// <summary>
    /// A parked connection left its parking (taken by a call, or given back to the pool). <paramref name="parkedAt"/> is the
    /// time it parked, 0 when the pool was not timed then (nothing to record); <paramref name="counted"/>, whether its park was
    /// counted here. Returns the time now, 0 when not read.
    /// </summary>
    private long ParkEnded(long parkedAt, bool counted)
    {
        if (counted)
            Interlocked.Decrement(ref _parked);
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
