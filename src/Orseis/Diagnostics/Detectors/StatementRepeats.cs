using System.Numerics;
using System.Runtime.CompilerServices;

namespace Orseis.Diagnostics.Detectors;

/// <summary>
/// One unit of work's statements, for the repeated-statement detector: one object per <see cref="ConnectionScope"/> (or
/// per flow without one) that runs a statement with arguments while the detector is on, made on its first such
/// statement and never per call. A scope's is taken from a small pool shared by every pool of the process and given
/// back when the scope ends (<see cref="Rent"/>, <see cref="Return"/>), so a request in a scope allocates nothing for it
/// once the process is warm. A flow's is lent by its pool's detector from a small table and taken back by another flow
/// once it has been idle longer than the gap (its streaks have ended by then: <see cref="ForFlow"/>), so requests
/// without a scope allocate nothing for it either once the process is warm. It follows the last <see cref="Kept"/>
/// statement texts of the unit, each with its current streak of runs. Only one thread updates it at a time
/// (<see cref="TryEnter"/>): a run that finds it taken ran at the same time as another run of the unit, which is not
/// "one after another", and is skipped.
/// </summary>
internal sealed class StatementRepeats(bool scoped)
{
    /// <summary>How many statement texts of one unit are followed at once (a loop body of up to this many statements).</summary>
    public const int Kept = 4; // FollowedSlot looks at each slot by hand

    /// <summary>Units kept for the next scopes (more scopes at once than this allocate their own).</summary>
    private static readonly StatementRepeats?[] Spare = new StatementRepeats?[32];

    private int _busy;

    /// <summary>The unit is a <see cref="ConnectionScope"/> (a request), not a flow without one.</summary>
    public bool Scoped { get; } = scoped;

    /// <summary>
    /// The scope this unit belongs to while it is rented (<see cref="Rent"/>), or the flow it is lent to
    /// (<see cref="ForFlow"/>); a run whose scope or flow is not the owner is not counted in it.
    /// </summary>
    public object? Owner;

    /// <summary>When the unit's last run ended (a timestamp of the clock of the pool that lent it), for a flow's unit.</summary>
    public long LastEnd;

    /// <summary>The streaks, one per statement text followed.</summary>
    public Streaks Runs;

    /// <summary>The text of a candidate whose call site is still wanted (read at the next start of it on the caller's stack).</summary>
    public string? WantedSite;

    /// <summary>A call site read for <see cref="WantedSite"/> as a run of it started.</summary>
    public string? PendingSite;

    /// <summary>When the unit's last call entered Open (a flow that opens per call): a pause is counted from there.</summary>
    public long LastOpenStart;

    /// <summary>The unit is in the detector's list of units with a candidate not yet reported.</summary>
    public bool Listed;

    /// <summary>The unit of <paramref name="scope"/>: its own, one from the pool, or null when the one it holds was given
    /// back when it ended and now belongs to another scope (a call that outlived its scope).</summary>
    public static StatementRepeats? Of(ScopeSlot scope)
    {
        if (scope.Repeats is { } unit)
            return ReferenceEquals(unit.Owner, scope) ? unit : null;
        unit = Rent(scope);
        scope.Repeats = unit;
        return unit;
    }

    /// <summary>A clean unit for <paramref name="scope"/>, from the pool when it has one.</summary>
    public static StatementRepeats Rent(ScopeSlot scope)
    {
        for (int i = 0; i < Spare.Length; i++)
        {
            if (Volatile.Read(ref Spare[i]) is not null && Interlocked.Exchange(ref Spare[i], null) is { } spare)
            {
                spare.Owner = scope;
                return spare;
            }
        }

        return new StatementRepeats(scoped: true) { Owner = scope };
    }

    /// <summary>Gives a rented unit back once its scope ended and its candidates were reported (a unit not rented is
    /// left alone). The caller holds it (<see cref="TryEnter"/>).</summary>
    public static void Return(StatementRepeats unit)
    {
        if (unit.Owner is null)
            return;
        unit.Owner = null;
        unit.Clear();
        for (int i = 0; i < Spare.Length; i++)
        {
            if (Volatile.Read(ref Spare[i]) is null && Interlocked.CompareExchange(ref Spare[i], unit, null) is null)
                return;
        }
    }

    /// <summary>
    /// <paramref name="flow"/>'s unit: its own while it still owns it; else one of <paramref name="lent"/> (the detector's
    /// table) that has been idle for longer than <paramref name="gap"/> at <paramref name="now"/> (no candidate waiting, no
    /// call site wanted: every streak of it ended), cleared and given to this flow; else a new one, kept in the table
    /// where it has room. A flow that loses its unit this way had paused longer than the gap: its streaks had ended.
    /// </summary>
    public static StatementRepeats ForFlow(FlowState flow, StatementRepeats?[] lent, long now, long gap)
    {
        if (flow.Repeats is { } own && own.OwnedBy(flow))
            return own;
        for (int i = 0; i < lent.Length; i++)
        {
            StatementRepeats? unit = Volatile.Read(ref lent[i]);
            if (unit is null)
            {
                var made = new StatementRepeats(scoped: false) { Owner = flow, LastEnd = now };
                if (Interlocked.CompareExchange(ref lent[i], made, null) is null)
                    return flow.Repeats = made;
                continue;
            }

            if (!unit.IdleAt(now, gap) || !unit.TryEnter())
                continue;
            try
            {
                if (unit.IdleAt(now, gap))
                {
                    unit.Clear();
                    unit.Owner = flow;
                    unit.LastEnd = now; // not idle: no other flow takes it before its first run is counted
                    return flow.Repeats = unit;
                }
            }
            finally
            {
                unit.Exit();
            }
        }

        return flow.Repeats = new StatementRepeats(scoped: false) { Owner = flow, LastEnd = now };
    }

    /// <summary>Whether the unit belongs to <paramref name="owner"/> (a scope or a flow); one made by hand has no owner.</summary>
    public bool OwnedBy(object? owner) => Owner is null || ReferenceEquals(Owner, owner);

    /// <summary>A flow's unit with nothing left to report at <paramref name="now"/>: no run nor open within the gap.</summary>
    private bool IdleAt(long now, long gap) =>
        !Listed && WantedSite is null && now - Math.Max(Volatile.Read(ref LastEnd), Volatile.Read(ref LastOpenStart)) > gap;

    /// <summary>Forgets the streaks (keeping their detail storage) and sites.</summary>
    private void Clear()
    {
        for (int i = 0; i < Kept; i++)
            Runs[i].Clear();
        WantedSite = null;
        PendingSite = null;
        LastOpenStart = 0;
        LastEnd = 0;
    }

    public bool TryEnter() => Interlocked.CompareExchange(ref _busy, 1, 0) == 0;

    public void Exit() => Volatile.Write(ref _busy, 0);

    /// <summary>The streak at <paramref name="slot"/> (0 .. <see cref="Kept"/> - 1), without a span over the inline array.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public ref Streak At(int slot) => ref Unsafe.Add(ref Unsafe.As<Streaks, Streak>(ref Runs), (uint)slot % Kept);

    /// <summary>
    /// The slot whose streak follows this very text object (<paramref name="sql"/>, by reference: a call site's literal),
    /// -1 when none does; a text followed is in one slot only, so <see cref="SlotOf"/> would return the same slot, without
    /// its call. Inlined into the detector's steady case (<see cref="RepeatedStatementDetector.Ran"/>).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int FollowedSlot(string sql)
    {
        ref Streak first = ref Unsafe.As<Streaks, Streak>(ref Runs);
        return ReferenceEquals(first.Sql, sql) ? 0
            : ReferenceEquals(Unsafe.Add(ref first, 1).Sql, sql) ? 1
            : ReferenceEquals(Unsafe.Add(ref first, 2).Sql, sql) ? 2
            : ReferenceEquals(Unsafe.Add(ref first, 3).Sql, sql) ? 3
            : -1;
    }

    /// <summary>The streak of <paramref name="sql"/>, or a slot for it (an empty one, else the least recent that is no
    /// candidate waiting to be reported); -1 when every slot holds such a candidate.</summary>
    public int SlotOf(string sql)
    {
        ref Streak first = ref Unsafe.As<Streaks, Streak>(ref Runs);
        for (int i = 0; i < Kept; i++)
        {
            if (ReferenceEquals(Unsafe.Add(ref first, i).Sql, sql))
                return i;
        }

        int free = -1;
        long oldest = long.MaxValue;
        for (int i = 0; i < Kept; i++)
        {
            ref Streak streak = ref Unsafe.Add(ref first, i);
            if (streak.Sql is { } text && text.Length == sql.Length && string.Equals(text, sql, StringComparison.Ordinal))
                return i;
            if (streak.Open)
                continue;
            long last = streak.Sql is null ? long.MinValue : streak.LastEnd;
            if (last < oldest)
            {
                oldest = last;
                free = i;
            }
        }

        if (free >= 0)
            Unsafe.Add(ref first, free).Restart(sql);
        return free;
    }
}

/// <summary>One statement text's current run of repeats in a unit of work.</summary>
internal struct Streak
{
    /// <summary>How many recent run times are kept for the median.</summary>
    public const int TimesKept = 8;

    public string? Sql;

    /// <summary>Successful runs one after another (each within the gap of the previous one's end).</summary>
    public int Count;

    public int FirstHash;

    /// <summary>Runs whose arguments hashed as the first run's did.</summary>
    public int SameAsFirst;

    public long FirstStart;

    public long LastEnd;

    /// <summary>The runs' own time, summed (timestamp units).</summary>
    public long Busy;

    /// <summary>The first run's time (ms), until <see cref="Detail"/> is made.</summary>
    public float FirstMs;

    /// <summary>The argument hashes and run times, made on the streak's second run (a statement that runs once in a unit,
    /// the usual case, never needs them) and kept for its next streaks.</summary>
    public StreakDetail? Detail;

    /// <summary>Reached the threshold and not reported yet.</summary>
    public bool Open;

    /// <summary>Reported (or judged a paging loop): not reported again until it ends.</summary>
    public bool Done;

    /// <summary>Where the runs come from, when read.</summary>
    public string? Site;

    /// <summary>
    /// Counts a run of arguments <paramref name="hash"/> from <paramref name="started"/> to <paramref name="ended"/>,
    /// <paramref name="ms"/> long.
    /// </summary>
    public void Add(int hash, long started, long ended, double ms)
    {
        if (Count == 0)
        {
            FirstStart = started;
            FirstHash = hash;
            FirstMs = (float)ms;
        }
        else
        {
            StreakDetail detail = Detail ??= new StreakDetail();
            if (Count == 1)
            {
                detail.Clear();
                detail.Record(FirstHash, 0, FirstMs);
            }

            detail.Record(hash, Count, (float)ms);
        }

        Counted(hash, started, ended);
    }

    /// <summary>
    /// <see cref="Add"/> for a streak past its second run (<see cref="Count"/> at least 2, its <paramref name="detail"/>
    /// made): the same updates, for the detector's steady case.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void AddLater(StreakDetail detail, int hash, long started, long ended, double ms)
    {
        detail.Record(hash, Count, (float)ms);
        Counted(hash, started, ended);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Counted(int hash, long started, long ended)
    {
        if (hash == FirstHash)
            SameAsFirst++;
        Count++;
        Busy += ended - started;
        LastEnd = ended;
    }

    /// <summary>Starts following <paramref name="sql"/> from nothing (its detail, if any, is kept for reuse).</summary>
    public void Restart(string? sql)
    {
        StreakDetail? detail = Detail;
        this = default;
        Sql = sql;
        Detail = detail;
    }

    /// <summary>Forgets everything but the detail's storage.</summary>
    public void Clear() => Restart(null);

    /// <summary>The distinct argument sets, estimated from the bits set (exact in practice for a few dozen, within
    /// about 5 % at 200); never more than the runs, never fewer than 1 or 2 when the runs' hashes differ.</summary>
    public readonly int DistinctArguments()
    {
        if (SameAsFirst == Count || Detail is null)
            return 1;
        int set = 0;
        for (int i = 0; i < 4; i++)
            set += BitOperations.PopCount(Detail.Seen[i]);
        int estimate = set >= 256 ? Count : (int)Math.Round(-256 * Math.Log((256.0 - set) / 256));
        return Math.Clamp(estimate, 2, Count);
    }

    /// <summary>The median of the kept run times (ms).</summary>
    public readonly double MedianMs()
    {
        int n = Math.Min(Count, TimesKept);
        if (Detail is null)
            return n == 0 ? 0 : FirstMs;
        Span<float> sorted = stackalloc float[TimesKept];
        for (int i = 0; i < n; i++)
            sorted[i] = Detail.Times[i];
        sorted[..n].Sort();
        return n == 0 ? 0 : n % 2 == 1 ? sorted[n / 2] : (sorted[(n / 2) - 1] + sorted[n / 2]) / 2.0;
    }
}

/// <summary>A streak's argument hashes (one bit each: linear counting of the distinct argument sets) and last run times.</summary>
internal sealed class StreakDetail
{
    /// <summary>One bit per argument hash seen.</summary>
    public HashBits Seen;

    /// <summary>The last runs' times (ms).</summary>
    public RunTimes Times;

    /// <summary>Records run <paramref name="index"/> (from 0) of arguments <paramref name="hash"/>, <paramref name="ms"/> long.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Record(int hash, int index, float ms)
    {
        uint bit = (uint)hash * 2654435769u >> 24; // 0..255
        Seen[(int)(bit >> 6)] |= 1UL << (int)(bit & 63);
        Times[index & (Streak.TimesKept - 1)] = ms;
    }

    public void Clear()
    {
        Seen = default;
        Times = default;
    }
}

/// <summary>The <see cref="StatementRepeats.Kept"/> streaks of a unit, inline.</summary>
[InlineArray(StatementRepeats.Kept)]
internal struct Streaks
{
    private Streak _first;
}

/// <summary>256 bits, inline.</summary>
[InlineArray(4)]
internal struct HashBits
{
    private ulong _first;
}

/// <summary>The last run times, inline.</summary>
[InlineArray(Streak.TimesKept)]
internal struct RunTimes
{
    private float _first;
}
