using System.Globalization;

namespace Orseis.Diagnostics.Detectors;

/// <summary>The pool-size advice's rule: from the figures measured, the size advised and whether to say so.</summary>
internal sealed partial class PoolSizeAdvisor
{
    /// <summary>Spare connections per square root of the busy ones (<see cref="Sized"/>).</summary>
    private const double Spread = 2;

    /// <summary>
    /// The share of Max Pool Size that releases while callers queued must keep busy at the uncontended hold for the pool to
    /// count as what held them up. Measured on MariaDB (docs/capacity.md): a pool of 4 behind 10 ms holds, where 16
    /// connections passed twice as much, kept 3.3 to 3.5 of 4 busy over the whole load; on a machine at its CPU limit, a
    /// pool of 4 behind 0.1 ms holds kept 0.17 to 0.18 of it busy while callers queued, and one of 64 behind 11 ms holds
    /// 0.64 to 0.70, where 256 connections passed no more.
    /// </summary>
    internal const double PoolBoundShare = 0.75;

    /// <summary>
    /// The share of the CPUs busy while callers queued (<see cref="PoolSizeCpu"/>) at which a pool that did not hold them
    /// up (<see cref="PoolBoundShare"/>) is CPU-bound: its connections were held longer than they need because the CPUs
    /// were busy, more connections add no CPU, and the advice stays at the current size (or goes to the callers, where the
    /// pool is already half of them: <see cref="NoQueue"/>). In the sweep
    /// (docs/results/capacity/advice-followed-2026-11-29.md) the machine's CPUs read 1.00 busy at every point, and the
    /// short-statement loads' holds grew with the pool (0.5 ms at 8 connections, 8 ms at 128 for MySqlConnector open per
    /// call), where following the callers' demand (127 connections) kept 0.77 to 1.83 of the throughput. No load between
    /// 0.9 and 1 was measured: the margin is for readings a quarter second apart.
    /// </summary>
    internal const double CpuBoundShare = 0.9;

    /// <summary>
    /// The share of the time a connection needs per release (its uncontended hold and the provider's part inside Open)
    /// that this process must spend on CPU for the CPU to be what stretched the holds (<see cref="CpuBoundShare"/>). Below
    /// it the connection mostly waits (on the server's statement, or on CPUs that other work on the machine takes), and more
    /// connections overlap more waits. Measured in the sweep at load average 30 to 47 (the machine's CPUs 100 % busy): the
    /// short loads spent 0.08 to 0.48 ms of this process's CPU per release (0.15 and more of what a connection needs); the
    /// 10 ms statements 0.19 to 0.66 ms (0.02 to 0.06), and there a pool of 8 read 47 to 72 % busy, was called CPU-bound,
    /// and four times it passed 2.1 to 2.9 times as much.
    /// </summary>
    internal const double CpuShareOfNeed = 0.1;

    /// <summary>The provider's time inside Open per open (<see cref="InOpen"/>); <see cref="Measured"/> false when unknown.</summary>
    public readonly record struct OpenTime(TimeSpan Time, bool Measured);

    /// <summary>
    /// What was measured and advised; <see cref="Recommended"/> is null when <see cref="Starved"/>. <see cref="HeldUp"/>:
    /// callers queued, but releases came too slowly for the pool to be what held them up, and this is the share of Max Pool
    /// Size they kept busy (below <see cref="PoolBoundShare"/>); null otherwise. <see cref="CpuBusy"/>: the share of the
    /// CPUs busy while callers queued, when known; <see cref="CpuBound"/>: held up and the CPUs busy
    /// (<see cref="CpuBoundShare"/>), so the advice is the current size, or the callers' most where the pool is already
    /// half of them (<see cref="NoQueue"/>).
    /// </summary>
    public sealed record Advice(
        int? Recommended, double Busy, double PerSecond, TimeSpan Hold, double MeanDemand, long QueuedOpens, bool Raise, bool Lower,
        bool Starved, double? HeldUp = null, OpenTime InOpen = default, double? CpuBusy = null, bool CpuBound = false)
    {
        /// <summary>
        /// Set when the CPUs were busy but the queue is not CPU-bound: this process's CPU per release, and what a connection
        /// needs per release (<see cref="CpuShareOfNeed"/>).
        /// </summary>
        public (TimeSpan? Cpu, TimeSpan Need)? CpuPerRelease { get; init; }

        /// <summary>
        /// The connections the releases made while callers queued (at the uncontended hold) and the holds under way kept
        /// busy, of Max Pool Size: what a raise is judged on (<see cref="PoolBoundShare"/>); null when not worked out.
        /// </summary>
        public double? QueuedBusy { get; init; }

        /// <summary>
        /// Set when a raise is made although the releases kept less than <see cref="PoolBoundShare"/> of the pool busy,
        /// because the time went between holds (<see cref="Stretch"/>): the median and uncontended holds while callers
        /// queued, this process's CPU per release and what a connection needs per release.
        /// </summary>
        public (TimeSpan Median, TimeSpan Uncontended, TimeSpan Cpu, TimeSpan Need)? BetweenHolds { get; init; }

        /// <summary>
        /// The share of Max Pool Size taken while callers queued, the releases then priced at their own mean hold (with the
        /// provider's part inside Open) and the holds under way: the rest of the pool's time its connections sat free while
        /// callers queued (<see cref="FreeBetween"/>); null when not worked out.
        /// </summary>
        public double? Taken { get; init; }
    }

    /// <summary>
    /// The share of Max Pool Size taken (<see cref="Advice.Taken"/>) below which, with the CPUs busy
    /// (<see cref="CpuBoundShare"/>) and this process spending little of them (<see cref="CpuShareOfNeed"/>), a queue is
    /// raised although its holds were stretched (<see cref="Stretch"/>): a connection released sat free while the caller it
    /// was handed to waited for a CPU, and more connections overlap more of that wait. Measured on MariaDB beside a CPU hog
    /// (docs/results/diagnostics/pool-size-hog-2026-11-30f.md): 36 callers of 5 ms on a pool of 12 read 0.52 to 0.68 taken,
    /// their median holds up to 1.83 times the uncontended one, and a pool of 36 passed 1.45 to 2.57 times as much; a server
    /// saturating the CPUs (12 callers of a CPU-heavy statement on a pool of 4) read 0.86 to 0.88, and 12 passed no more.
    /// </summary>
    internal const double FreeBetween = 0.75;

    /// <summary>
    /// How much longer than the uncontended hold the median hold while callers queued may be for the connections not to
    /// count as held longer than they need. Below it, releases that kept less than <see cref="PoolBoundShare"/> of the pool
    /// busy lost the time between holds: a released connection handed to the next caller, the provider's reset inside Open,
    /// the thread pool's lateness in running the caller it woke. When this process also spent little CPU on each release
    /// (<see cref="CpuShareOfNeed"/>), that time is waiting, and more connections overlap more of it: a raise. Measured in
    /// the suite's saturation-burst (40 callers holding 100 ms on a pool of 10) at load 15: 3 of 10 runs read 71 % busy with
    /// the uncontended hold 97 ms for sleeps of 100 ms, 4 ms of CPU per release of the 97 ms a connection needs. Holds a
    /// saturated server or busy CPUs stretch have a median further from their 25th percentile: those stay a line.
    /// </summary>
    internal const double Stretch = 1.25;

    /// <summary>
    /// The share of the most callers that wanted a connection at once that a CPU-bound queue's pool must already have for
    /// the advice to be those callers (<see cref="NoQueue"/>) rather than the current size: half.
    /// </summary>
    internal const double NoQueueShare = 0.5;

    /// <summary>
    /// On a CPU-bound queue, the size at which none queues, where the pool is already <see cref="NoQueueShare"/> of it or
    /// more (<paramref name="size"/>); null otherwise (the current size is kept). More connections add no CPU, but the queue
    /// itself costs some: each connection handed to a waiting caller, the caller woken and run. From half the callers,
    /// removing the queue never lost more than 8 % on a machine the load had to itself: async callers of four short
    /// statements, 24 of 48, 64 of 128 and 80 of 160, fresh processes, both orders, five rounds: Npgsql 1.03 to 1.27 times
    /// as much, MySqlConnector open per call 1.04 to 1.17, its sessions 0.97 to 1.02 at the median; followed in the sweep,
    /// 0.92 to 1.39 at all 19 such rows (docs/results/capacity/no-queue-2026-12-02.md). On a machine five other sessions kept
    /// busy (load 20 to 31), Npgsql's sessions advised 124 from 64 had kept 0.64
    /// (docs/results/capacity/followed-2026-11-29-fifth.md). Below half the runs disagree: Npgsql's sessions at 16 of 128
    /// kept 0.78 to 0.89 (docs/results/capacity/cpu-bound-2026-12-02.md), MySqlConnector's at 40 of 128 0.94, the other
    /// loads at 40 of 128 passed 1.18 to 1.27; half is the share from which no harness showed a loss past noise. The
    /// callers are the most that wanted a connection at once since the pool was made (a first burst's crowd included):
    /// connections past those of the load now are never taken.
    /// </summary>
    private int? NoQueue(int size) =>
        DemandMost is { } most && most > size && size >= NoQueueShare * most ? most : null;

    /// <summary>The quantile of each kind's holds while callers queued that says how long they typically were.</summary>
    private const double MedianQuantile = 0.5;

    /// <summary>
    /// The advice for what was measured, or null before any connection was released. <paramref name="lastStarved"/>: when
    /// the thread pool was last seen starving (a timestamp of the log's clock, 0 if never or not watched).
    /// <paramref name="queuedRate"/>: releases per second while callers queued (the whole load's when null).
    /// <paramref name="uncontended"/>, <paramref name="whileQueued"/>: the uncontended hold of the whole load and of the
    /// releases made while callers queued (by kind: see <see cref="ByKind"/>); the 25th percentile of
    /// <paramref name="holds"/> when null. <paramref name="inOpen"/>: the provider's time inside Open with a connection
    /// taken, per open (<see cref="InOpen"/>); each release's hold began with one open, so a connection is taken for that
    /// plus the hold. None when null. <paramref name="typical"/>, <paramref name="typicalInOpen"/>: the mean hold and time
    /// inside Open, which size the pool (<paramref name="uncontended"/> and <paramref name="inOpen"/> when null); the
    /// uncontended ones judge whether the pool held queued callers up. <paramref name="demandHigh"/>: the demand 95 % of
    /// callers met as they arrived, at most (a floor for the advice). <paramref name="cpuBusy"/>: the share of the CPUs
    /// busy while callers queued (<see cref="PoolSizeCpu"/>), unknown when null. <paramref name="heldNow"/>: the holds under
    /// way, as connections busy a second of the time callers queued (<see cref="HeldNow"/>), added to the releases' part.
    /// <paramref name="cpuPerRelease"/>: this process's CPU time per release while callers queued (unknown when null): a
    /// queue is CPU-bound only if that is at least <see cref="CpuShareOfNeed"/> of what a connection needs per release:
    /// <paramref name="need"/>, the fastest holds' time (with the provider's part inside Open) while callers queued, or the
    /// uncontended hold and time inside Open when null. <paramref name="queuedMeanHold"/>: the mean hold of the releases made
    /// while callers queued (unknown when null), which prices how much of the pool they took (<see cref="Advice.Taken"/>).
    /// </summary>
    public Advice? Advise(
        HoldTimes holds, double meanDemand, long queuedOpens, long opens, bool report, long lastStarved = 0,
        double? queuedRate = null, TimeSpan? uncontended = null, TimeSpan? whileQueued = null, OpenTime? inOpen = null,
        TimeSpan? typical = null, OpenTime? typicalInOpen = null, double? demandHigh = null, double? cpuBusy = null,
        double heldNow = 0, TimeSpan? cpuPerRelease = null, TimeSpan? need = null, TimeSpan? queuedMeanHold = null)
    {
        (long first, long last) = holds.Span;
        if ((uncontended ?? holds.Percentile(HoldQuantile)) is not { } hold || last <= first)
            return null;
        double seconds = log.Time.GetElapsedTime(first, last).TotalSeconds;
        double perSecond = holds.Count / seconds;
        OpenTime uncontendedOpen = inOpen ?? default;
        OpenTime opening = typicalInOpen ?? uncontendedOpen;
        TimeSpan held = typical ?? hold;
        double busy = perSecond * (held + opening.Time).TotalSeconds;
        if (Demand(1) is { } most && busy > most)
            busy = most; // means over a short window (a cold first call) can read more than the callers ever took
        if (lastStarved != 0 && lastStarved >= first)
        {
            return new Advice(
                null, busy, perSecond, held, meanDemand, queuedOpens, Raise: false, Lower: false, Starved: true, InOpen: opening);
        }

        bool queued = queuedOpens >= Math.Max(MinQueuedOpens, opens / 100);
        // A pool no caller queued on: Little's law with spare connections, but never below what 95 % of callers met as
        // they arrived (the mean alone advised a pool of 64 at 32 clients 19, which kept 0.76 of the throughput), and never
        // above the size it has: it served them all (the 95th percentile's bucket top read 139 to 151 for 128 callers).
        int recommended = queued ? Sized(busy) : Math.Max(Sized(busy), (int)Math.Ceiling(demandHigh ?? 0));
        if (!queued && maxPoolSize is { } roomy)
            recommended = Math.Min(recommended, roomy);
        TimeSpan queuedHold = queuedRate is null ? hold : whileQueued ?? hold;
        // The releases made while callers queued, priced at the uncontended hold, and the holds still under way (a queue's
        // first long holds are released only later): the share of the pool they kept busy.
        double? queuedBusy = maxPoolSize is null
            ? null
            : (queuedRate ?? perSecond) * (queuedHold + uncontendedOpen.Time).TotalSeconds + (queuedRate is null ? 0 : heldNow);
        double share = maxPoolSize is { } cap ? queuedBusy!.Value / cap : 1;
        double? heldUp = queued && share < PoolBoundShare ? share : null;
        if (queued)
            recommended = Math.Max(recommended, (int)Math.Ceiling(meanDemand)); // the one size that cannot pass less: see the class
        // Never more than the most callers that wanted a connection at once: a connection past them is never taken (16
        // callers queued on a pool of 12 were advised 17, Little's law's spare connections:
        // docs/results/diagnostics/pool-size-server-bound-2026-11-30f.md).
        if (queued && DemandMost is { } callers)
            recommended = Math.Min(recommended, Math.Max(callers, (int)Math.Ceiling(meanDemand)));
        // Held longer than they need while the CPUs were busy: more connections add no CPU, they lengthen the holds (the
        // sweep's short loads: holds 0.5 ms at 8 connections, 8 ms at 128), and the size is kept, the one size sure not to
        // pass less: the demand passed 0.95 to 1.60 times as much in fresh processes, but 0.78 in the sweep's own process
        // and 0.89 with a grown thread pool on Npgsql's short sessions (docs/results/capacity/cpu-bound-2026-12-02.md).
        // Where the pool is already half the most callers at once or more, those callers (NoQueue): the queue is what a larger
        // pool removes.
        // ...but not when this process spent little CPU on each release against what a connection needs: then the holds
        // wait (the server's statement, or CPUs other work on the machine takes), and more connections overlap more waits.
        // What a connection needs per release is what the fastest ones took: on CPUs other work keeps busy, every hold (its
        // 25th percentile too) carries the scheduler's delay, and a short session's four round trips then read as waiting
        // (Npgsql at 64 connections, advised the demand, passed 0.64 to 0.85 as much); a 10 ms statement needs 10 ms however fast.
        TimeSpan needs = need ?? queuedHold + uncontendedOpen.Time;
        bool waits = cpuPerRelease is { } perRelease && perRelease < needs * CpuShareOfNeed;
        bool cpuBound = heldUp is not null && cpuBusy >= CpuBoundShare && maxPoolSize is not null && !waits;
        if (cpuBound)
            recommended = NoQueue(maxPoolSize!.Value) ?? maxPoolSize.Value;
        // Held no longer than they need, the pool short of busy all the same, this process's CPU little of each release: the
        // time went between holds (handed over, reset inside Open, the woken caller run late), waiting, and more connections
        // overlap more waits (see Stretch). Judged on this advisor's own holds while callers queued, unknown otherwise.
        // Stretched holds too, when the CPUs were busy with work not this process's and the connections sat free in the pool
        // for more than a quarter of the time callers queued (see FreeBetween): the woken callers ran late, and more
        // connections overlap more of that wait (a pool of 12 behind 36 callers of 5 ms beside a CPU hog passed 1.45 to 2.57
        // times as much at 36). Holds a saturated server stretches keep the pool taken: those stay a line.
        double? taken = queuedRate is { } rateQueued && queuedMeanHold is { } meanQueued && maxPoolSize is { } pool
            ? (rateQueued * (meanQueued + uncontendedOpen.Time).TotalSeconds + heldNow) / pool
            : null;
        bool freeBetween = cpuBusy >= CpuBoundShare && taken < FreeBetween;
        (TimeSpan, TimeSpan, TimeSpan, TimeSpan)? between = null;
        if (heldUp is not null && !cpuBound && waits && queuedRate is not null && ByKind(MedianQuantile).WhileQueued is { } median
            && (median.Ticks <= queuedHold.Ticks * Stretch || freeBetween))
        {
            between = (median, queuedHold, cpuPerRelease!.Value, needs);
        }

        bool raise = queued && (heldUp is null || between is not null) && maxPoolSize is { } max && recommended > max;
        bool lower = !queued && maxPoolSize is { } m && m >= 2 * recommended;
        var advice = new Advice(
            recommended, busy, perSecond, held, meanDemand, queuedOpens, raise, lower, Starved: false, heldUp, opening, cpuBusy, cpuBound)
        {
            CpuPerRelease = heldUp is not null && cpuBusy >= CpuBoundShare && waits ? (cpuPerRelease, needs) : null,
            QueuedBusy = queued ? queuedBusy : null,
            BetweenHolds = raise ? between : null,
            Taken = queued ? taken : null,
        };
        if (raise && report)
        {
            CultureInfo c = CultureInfo.InvariantCulture;
            log.Report(FindingKind.PoolSize,
                string.Create(c, $"Max Pool Size {maxPoolSize} of pool '{log.PoolName}' is too small for this load: ") +
                string.Create(c, $"{queuedOpens} open(s) queued for a connection ") +
                string.Create(c, $"(callers wanted {meanDemand:0.#} connections on average as they arrived). ") +
                string.Create(c, $"Little's law: {Measured(advice)} -> {Sized(busy)} with spare connections; ") +
                Evidence(advice) +
                string.Create(c, $"raise Max Pool Size to {recommended} ({Reason(advice, Sized(busy))}) ") +
                "if the server can take it, or hold connections for less time.",
                new Dictionary<string, double>
                {
                    ["maxPoolSize"] = maxPoolSize ?? -1,
                    ["recommended"] = recommended,
                    ["busy"] = busy,
                    ["perSecond"] = perSecond,
                    ["holdMs"] = held.TotalMilliseconds,
                    ["inOpenMs"] = opening.Time.TotalMilliseconds,
                    ["meanDemand"] = meanDemand,
                    ["queuedOpens"] = queuedOpens,
                    ["queuedBusy"] = queuedBusy ?? -1,
                },
                null, rateLimited: true, ofThisFlow: false); // made by a report, not by a call
        }

        return advice;
    }

    /// <summary>The quantile of each kind's holds (and of the opens' time inside Open) that prices what a connection needs.</summary>
    internal const double NeedQuantile = 0.01;

    /// <summary>
    /// What a connection needs per release while callers queued, as the fastest holds show it: each kind's
    /// <see cref="NeedQuantile"/>, averaged over its releases made while callers queued, and the provider's part inside Open
    /// at the same quantile; null when no release was made while callers queued.
    /// </summary>
    private TimeSpan? Need() =>
        ByKind(NeedQuantile).WhileQueued is { } fastest ? fastest + InOpen(NeedQuantile).Time : null;

    /// <summary>
    /// The pool size for <paramref name="busy"/> connections kept busy on average: those, two more per square root of them
    /// (the spread of a load's demand around its mean, as staffing rules for queues size servers), and one.
    /// </summary>
    internal static int Sized(double busy) => (int)Math.Ceiling(busy + Spread * Math.Sqrt(busy)) + 1;
}
