using System.Data.Common;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// The connections held right now, with when and by whom they were acquired: what held-too-long checks and what a pool
/// timeout's snapshot names. Kept in lock-striped dictionaries of structs, so an acquire and its release allocate
/// nothing once the table has grown to the pool's size. The acquiring stack is kept only for connections the caller
/// holds across calls (sessions and streams), captured cheaply (no file or line lookup) and formatted only if reported.
/// </summary>
internal sealed class HolderTable
{
    private const int Stripes = 16;
    private readonly Dictionary<HeldKey, Holder>[] _stripes;
    private readonly TimeProvider _time;
    private int _count;

    public HolderTable(TimeProvider time)
    {
        _time = time;
        _stripes = new Dictionary<HeldKey, Holder>[Stripes];
        for (int i = 0; i < Stripes; i++)
            _stripes[i] = new Dictionary<HeldKey, Holder>();
    }

    /// <summary>Records a connection acquired at <paramref name="started"/> (a timestamp of the table's clock).</summary>
    public void Add(DbConnection connection, string owner, bool heldByDesign, StackTrace? acquirer, long started)
    {
        var holder = new Holder(started, owner, acquirer is null ? null : new Acquirer(acquirer), heldByDesign);
        Dictionary<HeldKey, Holder> stripe = Stripe(connection);
        lock (stripe)
            stripe[new HeldKey(connection)] = holder;
        Interlocked.Increment(ref _count);
    }

    public bool TryRemove(DbConnection connection, out Holder holder)
    {
        if (Volatile.Read(ref _count) == 0)
        {
            holder = default;
            return false;
        }

        Dictionary<HeldKey, Holder> stripe = Stripe(connection);
        bool removed;
        lock (stripe)
            removed = stripe.Remove(new HeldKey(connection), out holder);
        if (removed)
            Interlocked.Decrement(ref _count);
        return removed;
    }

    /// <summary>Holders out longer than <paramref name="threshold"/> and not yet reported, now marked reported.</summary>
    public List<(Holder Holder, TimeSpan Held)> TakeOverdue(TimeSpan threshold, long now)
    {
        var overdue = new List<(Holder, TimeSpan)>();
        foreach (Dictionary<HeldKey, Holder> stripe in _stripes)
        {
            lock (stripe)
            {
                foreach (HeldKey key in stripe.Keys)
                {
                    ref Holder holder = ref CollectionsMarshal.GetValueRefOrNullRef(stripe, key);
                    TimeSpan held = _time.GetElapsedTime(holder.Started, now);
                    if (holder.Reported || held <= threshold)
                        continue;
                    holder.Reported = true;
                    overdue.Add((holder, held));
                }
            }
        }

        return overdue;
    }

    /// <summary>The holder out the longest, and for how long.</summary>
    public (TimeSpan? Held, string? Where) Longest()
    {
        Holder? oldest = null;
        foreach (Dictionary<HeldKey, Holder> stripe in _stripes)
        {
            lock (stripe)
            {
                foreach (Holder holder in stripe.Values)
                {
                    if (oldest is not { } o || holder.Started < o.Started)
                        oldest = holder;
                }
            }
        }

        return oldest is { } h ? (_time.GetElapsedTime(h.Started), h.Stack) : (null, null);
    }

    private Dictionary<HeldKey, Holder> Stripe(DbConnection connection) =>
        _stripes[RuntimeHelpers.GetHashCode(connection) & (Stripes - 1)];

    /// <summary>
    /// A held connection as a dictionary key, by reference. A struct key gives the dictionary code of its own, where a
    /// reference-type key runs the shared generic code, which looks up its comparer at run time on every call.
    /// </summary>
    internal readonly struct HeldKey(DbConnection connection) : IEquatable<HeldKey>
    {
        private readonly DbConnection _connection = connection;

        public bool Equals(HeldKey other) => ReferenceEquals(_connection, other._connection);

        public override bool Equals(object? obj) => obj is HeldKey other && Equals(other);

        public override int GetHashCode() => RuntimeHelpers.GetHashCode(_connection);
    }

    /// <summary>One held connection: when and by whom it was acquired, and where (sessions and streams only).</summary>
    internal struct Holder(long started, string owner, Acquirer? where, bool reported)
    {
        public long Started { get; } = started;

        public string Owner { get; } = owner;

        /// <summary>Where the connection was acquired, formatted on first use (most holders are never reported).</summary>
        public readonly string? Stack => where?.Formatted;

        public bool Reported { get; set; } = reported;
    }

    /// <summary>An acquiring stack, formatted once, on first use.</summary>
    internal sealed class Acquirer(StackTrace trace)
    {
        private string? _formatted;

        public string Formatted => _formatted ??= CallSites.Format(trace);
    }
}
