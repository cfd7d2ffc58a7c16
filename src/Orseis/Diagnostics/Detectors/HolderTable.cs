using System.Diagnostics;
using System.Numerics;
using System.Runtime.CompilerServices;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// The connections held right now, with when and by whom they were acquired: what held-too-long checks and what a pool
/// timeout's snapshot names. An acquire and its release take no lock and allocate nothing: an acquire claims a free slot
/// of a fixed array (one compare-and-swap, searched from a place that depends on the acquiring thread, so threads rarely
/// meet) and returns the slot's number, its <i>hold</i>, which the caller keeps with the connection and gives back on
/// release; only when every slot is taken does a hold go to a locked dictionary beside it, numbered there. The array has
/// twice as many slots as Max Pool Size, so that happens only when the pool size is unknown or connections are held
/// outside the pool's limit. Nothing hashes the connection's identity: that would write a hash code into the
/// connection's object header, and the <c>lock (this)</c> in <c>Component.Dispose</c> would then have to inflate a sync
/// block for every connection disposed. Scans read a slot's start time before and after its other fields and skip a
/// slot that changed meanwhile. The acquiring stack is kept only for connections the caller holds across calls
/// (sessions and streams), captured cheaply (no file or line lookup) and formatted only if reported.
/// </summary>
internal sealed class HolderTable
{
    /// <summary>The hold of a connection the table does not track.</summary>
    public const int NoHold = -1;

    private readonly Slot[] _slots;
    private readonly int _mask;
    private readonly TimeProvider _time;
    private readonly Lock _overflowLock = new();
    private readonly Dictionary<int, (object Connection, Holder Holder)> _overflow = [];
    private int _nextOverflowKey;

    /// <param name="time">The clock holds are timed by.</param>
    /// <param name="expectedHolders">How many connections may be held at once (Max Pool Size), when known: the table has
    /// at least twice that many slots.</param>
    public HolderTable(TimeProvider time, int? expectedHolders = null)
    {
        _time = time;
        int size = (int)BitOperations.RoundUpToPowerOf2((uint)Math.Clamp(2 * (expectedHolders ?? 32), 64, 1 << 16));
        _slots = new Slot[size];
        _mask = size - 1;
    }

    /// <summary>
    /// Records a connection acquired at <paramref name="started"/> (a timestamp of the table's clock) by <paramref name="flow"/>;
    /// returns its hold, for <see cref="TryRemove"/>. <paramref name="connection"/> is only compared by reference: a replay
    /// holds a plain object per recorded hold.
    /// </summary>
    public int Add(object connection, string owner, bool heldByDesign, Acquirer? where, long started, FlowState? flow = null)
    {
        // Reported when it equals Started: from the start for one held by design (timed, never a leak suspect); for the
        // others ~Started until a scan or the release claims the report, so a stale scan's swap never lands on a later hold.
        long reportedStarted = heldByDesign ? started : ~started;
        int first = ProbeStart() & _mask;
        for (int probe = 0; probe < _slots.Length; probe++)
        {
            int index = (first + probe) & _mask;
            ref Slot slot = ref _slots[index];
            // Claimed by an integer's compare-and-swap: one of a reference (what the slot's connection was claimed by until
            // 2026-12-01) goes through the runtime's helper and its write barrier, about 40 instructions an acquire under the
            // gate against a plain write's barrier (docs/results/overhead/2026-12-01-exact-cuts.md). The connection is
            // written before Started, as before, so a release that sees the hold sees its connection.
            if (Volatile.Read(ref slot.Taken) != 0)
                continue;
            if (Interlocked.CompareExchange(ref slot.Taken, 1, 0) != 0)
                continue;
            slot.Connection = connection;
            Fill(ref slot, owner, where, flow, reportedStarted, started);
            return index;
        }

        lock (_overflowLock)
        {
            // Overflow holds are numbered from -2 down (NoHold is -1); a number comes back only after 2^30 overflow holds.
            int key;
            do
                key = -2 - (_nextOverflowKey++ & 0x3FFF_FFFF);
            while (_overflow.ContainsKey(key));
            _overflow[key] = (connection, new Holder(started, owner, where, heldByDesign, flow));
            return key;
        }
    }

    /// <summary>
    /// Gives the hold <paramref name="hold"/> its <paramref name="kind"/> (<see cref="HoldKinds"/>) unless a statement already
    /// did: a hold that serves several calls (a session, a scope's parked connection) is of its first. Only its holder calls
    /// it, while it holds. Holds in the overflow (more than twice the expected holders at once) stay of kind 0.
    /// </summary>
    public void Label(int hold, int kind)
    {
        if (Unlabelled(hold))
            _slots[hold].Kind = kind;
    }

    /// <summary>
    /// <see cref="Label"/> for a caller that just saw <see cref="Unlabelled"/> true for <paramref name="hold"/>: the
    /// check is not made twice.
    /// </summary>
    public void LabelUnlabelled(int hold, int kind) => _slots[hold].Kind = kind;

    /// <summary>
    /// The flow that acquired <paramref name="hold"/>, for its holder (only it calls this, while it holds): false for a
    /// hold not in the array, one held by design (shared by every flow: ReuseConnection) or one already reported.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryFlowOf(int hold, out FlowState? flow)
    {
        if ((uint)hold < (uint)_slots.Length)
        {
            ref Slot slot = ref _slots[hold];
            if (Volatile.Read(ref slot.ReportedStarted) != slot.Started)
            {
                flow = slot.Flow;
                return true;
            }
        }

        flow = null;
        return false;
    }

    /// <summary>Whether <paramref name="hold"/> is in the table and no statement labelled it yet (see <see cref="Label"/>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Unlabelled(int hold) => hold >= 0 && hold < _slots.Length && _slots[hold].Kind == 0;

    /// <summary>
    /// Takes back the hold <paramref name="hold"/> (from <see cref="Add"/>) of <paramref name="connection"/>: false when
    /// it is not that connection's (never added, already removed).
    /// </summary>
    /// <remarks>
    /// Inlined: the holder is then written into the caller's own frame, where its three references need no GC write
    /// barrier (written through the <c>out</c> reference of a call, each took one: docs/results/overhead/2026-12-01-exact-cuts.md).
    /// A hold in the overflow is taken back by a method of its own.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryRemove(object connection, int hold, out Holder holder)
    {
        if (hold >= 0 && hold < _slots.Length)
        {
            ref Slot slot = ref _slots[hold];
            // Claimed by this release: of two releases of one connection at once only one frees the slot, so the other
            // can never clear a hold that a new acquire has put there meanwhile.
            long started = Volatile.Read(ref slot.Started);
            if (ReferenceEquals(Volatile.Read(ref slot.Connection), connection) && started != 0 &&
                Interlocked.CompareExchange(ref slot.Started, 0, started) == started)
            {
                bool reported = Interlocked.Exchange(ref slot.ReportedStarted, started) == started; // a scan's report or this one
                holder = new Holder(started, slot.Owner!, slot.Where, reported, slot.Flow, slot.Kind);
                slot.Where = null; // the owner and the flow stay, for the next hold of the slot to skip writing them (Add)
                slot.Connection = null;
                Volatile.Write(ref slot.Taken, 0); // last: the slot is free for the next Add
                return true;
            }
        }
        else if (hold < NoHold)
        {
            return TryRemoveOverflow(connection, hold, out holder);
        }

        holder = default;
        return false;
    }

    /// <summary>
    /// <see cref="TryRemove"/> for a connection that parks in a scope: the hold ends as it would there, but the slot stays
    /// claimed by <paramref name="connection"/>, empty (no scan sees a slot whose start is 0), for the hold of the scope's next
    /// call on it (<see cref="Restart"/>), or freed when the connection leaves its parking (<see cref="Free"/>). A parked
    /// connection is not held; the slot only spares its next hold the search for a free one, the claim and the connection's
    /// write (about 75 instructions a scope's call under the gate: docs/results/overhead/2026-12-01-scope-and-session.md).
    /// False, and nothing kept, when the hold is not that connection's or is in the overflow (removed there as by
    /// <see cref="TryRemove"/>: <paramref name="kept"/> false, the holder given when it was there).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryEndKeeping(object connection, int hold, out Holder holder, out bool kept)
    {
        if (hold >= 0 && hold < _slots.Length)
        {
            ref Slot slot = ref _slots[hold];
            long started = Volatile.Read(ref slot.Started);
            if (ReferenceEquals(Volatile.Read(ref slot.Connection), connection) && started != 0 &&
                Interlocked.CompareExchange(ref slot.Started, 0, started) == started)
            {
                bool reported = Interlocked.Exchange(ref slot.ReportedStarted, started) == started;
                holder = new Holder(started, slot.Owner!, slot.Where, reported, slot.Flow, slot.Kind);
                slot.Where = null;
                kept = true; // Taken and the connection stay: the slot is the parked connection's
                return true;
            }
        }
        else if (hold < NoHold)
        {
            kept = false;
            return TryRemoveOverflow(connection, hold, out holder);
        }

        holder = default;
        kept = false;
        return false;
    }

    /// <summary>
    /// A new hold of the parked connection whose slot <paramref name="hold"/> <see cref="TryEndKeeping"/> kept: what
    /// <see cref="Add"/> writes, in that slot (still claimed, the connection in it), so the hold is <paramref name="hold"/> again.
    /// </summary>
    public int Restart(int hold, string owner, Acquirer? where, long started, FlowState? flow = null)
    {
        Fill(ref _slots[hold], owner, where, flow, reportedStarted: ~started, started); // a scope's: never held by design
        return hold;
    }

    /// <summary>
    /// Writes a hold into its claimed <paramref name="slot"/>, <see cref="Slot.Started"/> last. Each write of a reference
    /// costs a GC write barrier: a release leaves the owner and the flow in the slot (the thread that freed it usually takes
    /// it again, for the same owner and flow) and clears the acquiring stack, so only what differs is written.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Fill(ref Slot slot, string owner, Acquirer? where, FlowState? flow, long reportedStarted, long started)
    {
        if (!ReferenceEquals(slot.Owner, owner))
            slot.Owner = owner;
        if (where is not null)
            slot.Where = where;
        if (!ReferenceEquals(slot.Flow, flow))
            slot.Flow = flow;
        slot.ReportedStarted = reportedStarted;
        slot.Kind = 0;
        Volatile.Write(ref slot.Started, started); // last: a scan that sees it sees the fields above
    }

    /// <summary>Frees the slot <paramref name="hold"/> that <see cref="TryEndKeeping"/> kept (its connection left its parking).</summary>
    public void Free(int hold)
    {
        ref Slot slot = ref _slots[hold];
        slot.Connection = null;
        Volatile.Write(ref slot.Taken, 0); // last: the slot is free for the next Add
    }

    /// <summary><see cref="TryRemove"/> for a hold in the overflow (numbered below <see cref="NoHold"/>).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool TryRemoveOverflow(object connection, int hold, out Holder holder)
    {
        lock (_overflowLock)
        {
            if (_overflow.TryGetValue(hold, out (object Connection, Holder Holder) entry) &&
                ReferenceEquals(entry.Connection, connection))
            {
                _overflow.Remove(hold);
                holder = entry.Holder;
                return true;
            }
        }

        holder = default;
        return false;
    }

    /// <summary>Holders out longer than <paramref name="threshold"/> and not yet reported, now marked reported.</summary>
    public List<(Holder Holder, TimeSpan Held)> TakeOverdue(TimeSpan threshold, long now)
    {
        var overdue = new List<(Holder, TimeSpan)>();
        for (int i = 0; i < _slots.Length; i++)
        {
            ref Slot slot = ref _slots[i];
            if (Read(ref slot) is not { } holder || holder.Reported)
                continue;
            TimeSpan held = _time.GetElapsedTime(holder.Started, now);
            if (held <= threshold)
                continue;
            // Claims this hold's report, not the slot's: the swap lands only while the hold is unreported (~Started), so of
            // two scans, or a scan and the release, exactly one reports it, and a stale scan never marks a later hold.
            if (Interlocked.CompareExchange(ref slot.ReportedStarted, holder.Started, ~holder.Started) == ~holder.Started)
                overdue.Add((holder with { Reported = true }, held));
        }

        lock (_overflowLock)
        {
            foreach ((int key, (object connection, Holder holder)) in _overflow)
            {
                TimeSpan held = _time.GetElapsedTime(holder.Started, now);
                if (holder.Reported || held <= threshold)
                    continue;
                Holder reported = holder with { Reported = true };
                _overflow[key] = (connection, reported); // overwriting a value does not end the enumeration
                overdue.Add((reported, held));
            }
        }

        return overdue;
    }

    /// <summary>
    /// The holds under way at <paramref name="now"/> (a timestamp of the table's clock): how many, and how long they have
    /// been held all together, in timestamp ticks. A scope's parked connection is not under way: its kept slot is empty.
    /// </summary>
    public (int Count, long HeldTicks) UnderWay(long now)
    {
        int count = 0;
        long ticks = 0;
        for (int i = 0; i < _slots.Length; i++)
        {
            if (Read(ref _slots[i]) is { } holder)
            {
                count++;
                ticks += Math.Max(0, now - holder.Started);
            }
        }

        lock (_overflowLock)
        {
            foreach ((_, Holder holder) in _overflow.Values)
            {
                count++;
                ticks += Math.Max(0, now - holder.Started);
            }
        }

        return (count, ticks);
    }

    /// <summary>The holder out the longest, and for how long.</summary>
    public (TimeSpan? Held, string? Where) Longest()
    {
        Holder? oldest = null;
        for (int i = 0; i < _slots.Length; i++)
        {
            if (Read(ref _slots[i]) is { } holder && (oldest is not { } o || holder.Started < o.Started))
                oldest = holder;
        }

        lock (_overflowLock)
        {
            foreach ((_, Holder holder) in _overflow.Values)
            {
                if (oldest is not { } o || holder.Started < o.Started)
                    oldest = holder;
            }
        }

        return oldest is { } h ? (_time.GetElapsedTime(h.Started), h.Stack) : (null, null);
    }

    /// <summary>
    /// Where the calling thread's acquires begin their search for a free slot, spread over the table by the thread's id:
    /// read once per thread and kept in a thread-static (the thread's id itself cost about 40 instructions an acquire).
    /// The bit above any mask marks it made.
    /// </summary>
    [ThreadStatic]
    private static int _threadProbeStart;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int ProbeStart()
    {
        int start = _threadProbeStart;
        if (start == 0)
            _threadProbeStart = start = (int)((uint)Environment.CurrentManagedThreadId * 2654435769u >> 8) | (1 << 30);
        return start;
    }

    /// <summary>A slot's holder, or null when it is empty or changed while being read.</summary>
    private static Holder? Read(ref Slot slot)
    {
        long started = Volatile.Read(ref slot.Started);
        if (started == 0)
            return null;
        string? owner = Volatile.Read(ref slot.Owner);
        Acquirer? where = Volatile.Read(ref slot.Where);
        bool reported = Volatile.Read(ref slot.ReportedStarted) == started;
        return owner is not null && Volatile.Read(ref slot.Started) == started ? new Holder(started, owner, where, reported) : null;
    }

    /// <summary>
    /// One place for a held connection. <see cref="Taken"/> is 1 from the acquire that claims the slot to the release that
    /// frees it; <see cref="Started"/> is 0 while the slot is free or being filled; a free slot keeps its last hold's
    /// <see cref="Owner"/> and <see cref="Flow"/> (read only while a hold is there).
    /// </summary>
    private struct Slot
    {
        public int Taken;
        public object? Connection;
        public long Started;
        public long ReportedStarted; // == Started once this hold was reported (or from the start, for one held by design)
        public string? Owner;
        public Acquirer? Where;
        public FlowState? Flow;
        public int Kind;
    }

    /// <summary>
    /// One held connection: when and by whom it was acquired, where (sessions and streams only), and its kind (the
    /// statement that began it, <see cref="HoldKinds"/>; 0 for none).
    /// </summary>
    internal readonly record struct Holder(long Started, string Owner, Acquirer? Where, bool Reported, FlowState? Flow = null, int Kind = 0)
    {
        /// <summary>Where the connection was acquired, formatted on first use (most holders are never reported).</summary>
        public readonly string? Stack => Where?.Formatted;
    }

    /// <summary>An acquiring stack, formatted once, on first use; or, in a replay, the stack as the process formatted it.</summary>
    internal sealed class Acquirer
    {
        private readonly StackTrace? _trace;
        private string? _formatted;

        public Acquirer(StackTrace trace) => _trace = trace;

        public Acquirer(string formatted) => _formatted = formatted;

        public string Formatted => _formatted ??= CallSites.Format(_trace!);
    }
}
