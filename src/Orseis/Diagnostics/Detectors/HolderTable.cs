using System.Data.Common;
using System.Diagnostics;
using System.Numerics;
using System.Runtime.CompilerServices;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// The connections held right now, with when and by whom they were acquired: what held-too-long checks and what a pool
/// timeout's snapshot names. An acquire and its release take no lock and allocate nothing: each connection sits in a
/// slot of a fixed array near the one its identity hashes to (claimed with one compare-and-swap, found again by reference
/// within the furthest any connection ever sat from its home), and only when that neighbourhood is full does it go to a
/// locked dictionary beside it. Scans read a slot's start time before and after its other fields and skip a slot that
/// changed meanwhile. The acquiring stack is kept only for connections the caller holds across calls (sessions and
/// streams), captured cheaply (no file or line lookup) and formatted only if reported.
/// </summary>
internal sealed class HolderTable
{
    /// <summary>The furthest from its home slot a connection may sit; beyond it, the overflow dictionary.</summary>
    internal const int MaxProbe = 16;

    private readonly Slot[] _slots;
    private readonly int _mask;
    private readonly TimeProvider _time;
    private readonly Lock _overflowLock = new();
    private readonly Dictionary<HeldKey, Holder> _overflow = [];
    private long _furthest = -1; // -1 until the first connection is added: a table never used costs its releases nothing
    private int _overflowCount;

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
    /// Records a connection acquired at <paramref name="started"/> (a timestamp of the table's clock) by <paramref name="flow"/>.
    /// </summary>
    public void Add(DbConnection connection, string owner, bool heldByDesign, StackTrace? acquirer, long started, FlowState? flow = null)
    {
        Acquirer? where = acquirer is null ? null : new Acquirer(acquirer);
        int home = Home(connection);
        for (int probe = 0; probe < MaxProbe; probe++)
        {
            ref Slot slot = ref _slots[(home + probe) & _mask];
            if (Volatile.Read(ref slot.Connection) is not null)
                continue;
            if (Interlocked.CompareExchange(ref slot.Connection, connection, null) is not null)
                continue;
            slot.Owner = owner;
            slot.Where = where;
            slot.Flow = flow;
            // Reported when it equals Started: from the start for one held by design (timed, never a leak suspect); for the
            // others ~Started until a scan or the release claims the report, so a stale scan's swap never lands on a later hold.
            slot.ReportedStarted = heldByDesign ? started : ~started;
            Volatile.Write(ref slot.Started, started); // last: a scan that sees it sees the fields above
            Peaks.Raise(ref _furthest, probe);
            return;
        }

        lock (_overflowLock)
            _overflow[new HeldKey(connection)] = new Holder(started, owner, where, heldByDesign, flow);
        Interlocked.Increment(ref _overflowCount);
    }

    public bool TryRemove(DbConnection connection, out Holder holder)
    {
        long furthest = Volatile.Read(ref _furthest);
        int home = furthest < 0 ? 0 : Home(connection); // never used (nothing timed): no identity hash per release
        for (int probe = 0; probe <= furthest; probe++)
        {
            ref Slot slot = ref _slots[(home + probe) & _mask];
            if (!ReferenceEquals(Volatile.Read(ref slot.Connection), connection))
                continue;
            // Claimed by this release: of two releases of one connection at once only one frees the slot, so the other
            // can never clear a hold that a new acquire has put there meanwhile.
            long started = Volatile.Read(ref slot.Started);
            if (started == 0 || Interlocked.CompareExchange(ref slot.Started, 0, started) != started)
                continue;
            bool reported = Interlocked.Exchange(ref slot.ReportedStarted, started) == started; // a scan's report or this one
            holder = new Holder(started, slot.Owner!, slot.Where, reported, slot.Flow);
            slot.Owner = null;
            slot.Where = null;
            slot.Flow = null;
            Volatile.Write(ref slot.Connection, null);
            return true;
        }

        if (Volatile.Read(ref _overflowCount) == 0)
        {
            holder = default;
            return false;
        }

        bool removed;
        lock (_overflowLock)
            removed = _overflow.Remove(new HeldKey(connection), out holder);
        if (removed)
            Interlocked.Decrement(ref _overflowCount);
        return removed;
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
            foreach (HeldKey key in _overflow.Keys)
            {
                Holder holder = _overflow[key];
                TimeSpan held = _time.GetElapsedTime(holder.Started, now);
                if (holder.Reported || held <= threshold)
                    continue;
                holder.Reported = true;
                _overflow[key] = holder;
                overdue.Add((holder, held));
            }
        }

        return overdue;
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
            foreach (Holder holder in _overflow.Values)
            {
                if (oldest is not { } o || holder.Started < o.Started)
                    oldest = holder;
            }
        }

        return oldest is { } h ? (_time.GetElapsedTime(h.Started), h.Stack) : (null, null);
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

    private int Home(DbConnection connection) => (int)((uint)RuntimeHelpers.GetHashCode(connection) * 2654435769u >> 8) & _mask;

    /// <summary>One place for a held connection. <see cref="Started"/> is 0 while the slot is free or being filled.</summary>
    private struct Slot
    {
        public DbConnection? Connection;
        public long Started;
        public long ReportedStarted; // == Started once this hold was reported (or from the start, for one held by design)
        public string? Owner;
        public Acquirer? Where;
        public FlowState? Flow;
    }

    /// <summary>A held connection as a key of the overflow dictionary, by reference.</summary>
    internal readonly struct HeldKey(DbConnection connection) : IEquatable<HeldKey>
    {
        private readonly DbConnection _connection = connection;

        public bool Equals(HeldKey other) => ReferenceEquals(_connection, other._connection);

        public override bool Equals(object? obj) => obj is HeldKey other && Equals(other);

        public override int GetHashCode() => RuntimeHelpers.GetHashCode(_connection);
    }

    /// <summary>One held connection: when and by whom it was acquired, and where (sessions and streams only).</summary>
    internal record struct Holder(long Started, string Owner, Acquirer? Where, bool Reported, FlowState? Flow = null)
    {
        /// <summary>Where the connection was acquired, formatted on first use (most holders are never reported).</summary>
        public readonly string? Stack => Where?.Formatted;
    }

    /// <summary>An acquiring stack, formatted once, on first use.</summary>
    internal sealed class Acquirer(StackTrace trace)
    {
        private string? _formatted;

        public string Formatted => _formatted ??= CallSites.Format(trace);
    }
}
