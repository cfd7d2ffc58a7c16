namespace Orseis.Scenarios;

/// <summary>
/// Whether a pool-size advice held when followed, the judge of the sweep (<c>PoolSweep</c>) and of the capacity
/// study's "Following the advice" table: at the advised size the load kept at least <see cref="Kept"/> of its throughput
/// at the current size, and a larger size (four times it, at most one connection per caller) passed no more than
/// <see cref="Enough"/> times the advised size's. An advice to keep the current size is judged by the larger size alone:
/// keeping a size says it is enough, so a larger size passing more refutes it (docs/results/capacity/cpu-bound-2026-12-02.md);
/// following it changes nothing, so it cannot lose, and its run at the advised size is a second run of the same size,
/// whose ratio to the first is the harness's noise, not the advice's (two runs of 16 read 0.70 to 1.09 of each other at
/// the median of three to five rounds: docs/results/capacity/no-queue-2026-12-02.md). The same noise bears on every ratio
/// judged here, the 5 % of <see cref="Enough"/> included: a verdict near either bar is the harness's as much as the
/// advice's.
/// </summary>
internal static class AdviceFollowed
{
    /// <summary>The share of the throughput at the current size the advised size must keep.</summary>
    public const double Kept = 0.90;

    /// <summary>How much more than the advised size a larger one may pass for the advised size to be enough.</summary>
    public const double Enough = 1.05;

    /// <summary>
    /// <paramref name="keptShare"/>: throughput at the advised size over the current one; <paramref name="largerShare"/>:
    /// at the larger size over the advised one, null when no larger size was run; <paramref name="sameSize"/>: the advice
    /// was the current size (<paramref name="keptShare"/> is then two runs of one size, not judged).
    /// </summary>
    public static bool Holds(double keptShare, double? largerShare, bool sameSize = false) =>
        (sameSize || keptShare >= Kept) && !(largerShare > Enough);
}
