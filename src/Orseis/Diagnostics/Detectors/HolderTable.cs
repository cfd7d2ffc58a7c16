using System.Collections.Concurrent;
using System.Data.Common;
using System.Diagnostics;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// The connections held right now, with when and by whom they were acquired: what held-too-long checks and what a pool
/// timeout's snapshot names. The acquiring stack is kept only for connections the caller holds across calls (sessions
/// and streams), captured cheaply (no file or line lookup) and formatted only if reported; one-shot calls record none.
/// </summary>
internal sealed class HolderTable(TimeProvider time)
{
    private readonly ConcurrentDictionary<DbConnection, Holder> _holders = new(ReferenceEqualityComparer.Instance);
    private bool _everHeld;

    public void Add(DbConnection connection, string owner, bool heldByDesign, StackTrace? acquirer)
    {
        _holders[connection] = new Holder(time.GetTimestamp(), owner, acquirer) { Reported = heldByDesign };
        Volatile.Write(ref _everHeld, true);
    }

    public Holder? Remove(DbConnection connection) =>
        Volatile.Read(ref _everHeld) && _holders.TryRemove(connection, out Holder? holder) ? holder : null;

    public ICollection<Holder> All => _holders.Values;

    /// <summary>The holder out the longest, and for how long.</summary>
    public (TimeSpan? Held, string? Where) Longest()
    {
        Holder? oldest = null;
        foreach (Holder holder in _holders.Values)
        {
            if (oldest is null || holder.Started < oldest.Started)
                oldest = holder;
        }

        return oldest is null ? (null, null) : (time.GetElapsedTime(oldest.Started), oldest.Stack);
    }

    internal sealed class Holder(long started, string owner, StackTrace? trace)
    {
        private string? _stack;

        public long Started { get; } = started;

        public string Owner { get; } = owner;

        /// <summary>Where the connection was acquired, formatted on first use (most holders are never reported).</summary>
        public string? Stack => trace is null ? null : _stack ??= CallSites.Format(trace);

        public bool Reported { get; set; }
    }
}
