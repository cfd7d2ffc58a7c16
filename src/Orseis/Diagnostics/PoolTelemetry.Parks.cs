using System.Data.Common;
using System.Diagnostics;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Diagnostics;

/// <summary>
/// Connections parked by <see cref="ConnectionScope"/>s between back-to-back calls: a parked connection is not held (its
/// hold ends as it parks, a new one starts when a call takes it), and is counted apart, with the time it sat parked.
/// </summary>
/// <remarks>
/// A parked connection stays taken from the pool: <c>_counts</c>' high half counts the connections taken (held by calls or parked) and
/// changes only when one is opened or goes back to the pool, so a call that takes a parked connection or parks one moves
/// one count, <c>_parked</c>; <see cref="InUse"/> is the difference, exact during a call too (a report read then counts the
/// connection in use, as it is). The pool's own figures (demand, the peak) count a parked
/// connection as taken: no other caller can have it. Reuses are counted by each scope and told here when its connection
/// goes back to the pool or the scope ends (<see cref="ScopeReused"/>).
/// </remarks>
internal sealed partial class PoolTelemetry
{
    private long _parked;
    private long _scopeReuses;
    private long _parkedTicks;

    /// <summary>Connections parked in scopes now.</summary>
    public long ParkedNow => Math.Max(0, Interlocked.Read(ref _parked));

    /// <summary>
    /// A call ended and its scope parks <paramref name="connection"/>: the call's hold ends (its use time, its
    /// <c>Released</c> event, which out-of-process readers count holds and connections in use by, and its release told to
    /// the observers). Returns when it parked (a timestamp, the hold's end when its clock was read) while the pool is
    /// timed, else 0. <paramref name="hold"/> comes back as the holder table's slot the parked connection keeps for its next
    /// hold (<see cref="HolderTable.TryEndKeeping"/>), or <see cref="HolderTable.NoHold"/>: give it to
    /// <see cref="Unparked"/>, <see cref="ParkRefused"/> or <see cref="ParkGivenBack"/>.
    /// </summary>
    public long Parked(DbConnection connection, ref int hold)
    {
        Interlocked.Increment(ref _parked);
        long now = 0;
        bool kept = false;
        if (hold != HolderTable.NoHold && _holders.TryEndKeeping(connection, hold, out HolderTable.Holder holder, out kept))
            now = HoldEnded(holder, hold, TakenOf(Interlocked.Read(ref _counts)));
        if (!kept)
            hold = HolderTable.NoHold;
        return now != 0 || !ParkTimed ? now : Now();
    }

    /// <summary><see cref="Parked"/> for an untimed hold (<see cref="HolderTable.NoHold"/>): nothing to end but the count.</summary>
    public long ParkedUntimed()
    {
        Interlocked.Increment(ref _parked);
        return ParkTimed ? Now() : 0;
    }

    /// <summary>
    /// A park counted by <see cref="Parked"/> or <see cref="ParkedUntimed"/> did not happen (another connection was parked
    /// first, or the scope ended): the connection goes back to the pool through <see cref="Released"/>, its hold ended already.
    /// </summary>
    /// <param name="keptHold">What <see cref="Parked"/> gave back as the parked connection's slot: freed.</param>
    public void ParkRefused(int keptHold)
    {
        Free(keptHold);
        Interlocked.Decrement(ref _parked);
    }

    /// <summary>
    /// A call of a scope took its parked <paramref name="connection"/> (parked at <paramref name="parkedAt"/>) instead of
    /// opening one; its hold starts now. Returns the hold, as <see cref="Acquired"/> does.
    /// </summary>
    /// <param name="connection">The parked connection.</param>
    /// <param name="owner">The call's owner.</param>
    /// <param name="acquirer">The caller's stack, for a stream.</param>
    /// <param name="parkedAt">When it parked (<see cref="Parked"/>'s return).</param>
    /// <param name="keptHold">The slot it kept (<see cref="Parked"/>'s <c>hold</c>): the new hold is that slot again.</param>
    public int Unparked(DbConnection connection, string owner, StackTrace? acquirer, long parkedAt, int keptHold)
    {
        if (OrseisMetrics.ScopeReuses.Enabled)
            Guard(static (self, _) => OrseisMetrics.ScopeReuses.Add(1, self.Tags), 0);
        if (parkedAt == 0)
        {
            // Parked untimed: the hold is untimed too (Acquired's first steps, without its call).
            Free(keptHold);
            Interlocked.Decrement(ref _parked);
            return HolderTable.NoHold;
        }

        long now = ParkEnded(parkedAt);
        return Holding(connection, owner, heldByDesign: false, acquirer, openedAt: now, flow: null, keptHold);
    }

    /// <summary>A parked connection went back to the pool (its scope ended, or it sat idle): see <see cref="ParkEnded"/>.</summary>
    public void ParkGivenBack(long parkedAt, int keptHold)
    {
        Free(keptHold);
        ParkEnded(parkedAt);
        Interlocked.Add(ref _counts, -OneTaken);
    }

    /// <summary>Calls a scope served by its parked connection, told by the scope (<see cref="ScopeSlot"/>) in a batch.</summary>
    public void ScopeReused(long calls) => Interlocked.Add(ref _scopeReuses, calls);

    /// <summary>Frees the holder table's slot a parked connection kept (<see cref="Parked"/>), if it kept one.</summary>
    private void Free(int keptHold)
    {
        if (keptHold != HolderTable.NoHold)
            _holders.Free(keptHold);
    }

    /// <summary>
    /// A parked connection left its parking (taken by a call, or given back to the pool). <paramref name="parkedAt"/> is the
    /// time it parked, 0 when the pool was not timed then (nothing to record). Returns the time now, 0 when not read.
    /// </summary>
    private long ParkEnded(long parkedAt)
    {
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
