using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Study;

/// <summary>
/// The study's N values, 2^1..2^17 as in the original, and its number of rounds. <c>ORSEIS_STUDY_MAX_N</c> caps N for
/// smoke runs (a cap below 2 runs N = cap alone); <c>ORSEIS_STUDY_ROUNDS</c> sets the rounds.
/// </summary>
public static class StudySizes
{
    /// <summary>The environment variable that caps N.</summary>
    public const string MaxNVariable = "ORSEIS_STUDY_MAX_N";

    /// <summary>The environment variable that sets the number of rounds.</summary>
    public const string RoundsVariable = "ORSEIS_STUDY_ROUNDS";

    /// <summary>
    /// The environment variable a round's process is started with (<see cref="StudyProcesses"/>): the one round it
    /// measures.
    /// </summary>
    public const string RoundVariable = "ORSEIS_STUDY_ROUND";

    /// <summary>The name of the reuse mode in results (the baseline every variant is paired with).</summary>
    public const string Reuse = "Reuse";

    /// <summary>The largest exponent: N = 2^17 = 131072, as in 2014.</summary>
    public const int MaxExponent = 17;

    /// <summary>N = 2^1..2^17, capped by <see cref="MaxNVariable"/>.</summary>
    public static IEnumerable<int> All
    {
        get
        {
            int cap = int.TryParse(Environment.GetEnvironmentVariable(MaxNVariable), out int value) && value > 0 ? value : int.MaxValue;
            int[] sizes = [.. Enumerable.Range(1, MaxExponent).Select(e => 1 << e).Where(n => n <= cap)];
            return sizes.Length > 0 ? sizes : [cap];
        }
    }

    /// <summary>
    /// The rounds: <see cref="RoundsVariable"/>, else 12 on SQLite and 10 on a server. Each round measures every N once
    /// per variant; the ratio's confidence interval comes from the spread between rounds (at least 6 are needed).
    /// </summary>
    public static int Rounds =>
        int.TryParse(Environment.GetEnvironmentVariable(RoundsVariable), out int value) && value > 0 ? value : DefaultRounds(BenchProviders.Current);

    /// <summary>The rounds this process measures: the one of <see cref="RoundVariable"/>, else 1..<see cref="Rounds"/>.</summary>
    public static IEnumerable<int> RoundNumbers =>
        int.TryParse(Environment.GetEnvironmentVariable(RoundVariable), out int round) && round > 0 ? [round] : Enumerable.Range(1, Rounds);

    /// <summary>The default number of rounds of a provider (sized so the study fits its time budget on 2 cores).</summary>
    public static int DefaultRounds(BenchProvider provider) => provider == BenchProvider.Sqlite ? 12 : 10;

    /// <summary>
    /// Timed calls per mode in a case, of which the fastest counts: 3 on SQLite, 1 on a server (whose calls at large N
    /// take seconds). Load from other processes only ever adds time, so the fastest of a few short calls is the least
    /// disturbed one. A case makes twice as many calls, alternating the modes.
    /// </summary>
    public static int Iterations => BenchProviders.Current == BenchProvider.Sqlite ? 3 : 1;

    /// <summary>Odd rounds start a case with reuse, even rounds with the variant.</summary>
    public static bool VariantFirst(int round) => round % 2 == 0;

    /// <summary>Whether the case's call number <paramref name="call"/> (0-based) times the variant rather than reuse.</summary>
    public static bool IsVariantCall(int call, int round) => (call % 2 == 0) == VariantFirst(round);

    /// <summary>
    /// The fewest queries one timed call makes: 8192 on SQLite (about 5–30 ms), 256 on a server (about 20–40 ms per
    /// round trip of 70–150 µs); a sixteenth of that with <c>Pooling=false</c>, whose opens are 20–1000 times slower.
    /// </summary>
    public static int MinQueries(string mode) =>
        (BenchProviders.Current == BenchProvider.Sqlite ? 8192 : 256) / (mode == nameof(RatioStudy.OpenPerCallUnpooled) ? 16 : 1);

    /// <summary>
    /// How many times one timed call runs its N queries: enough for <see cref="MinQueries"/> queries, at least once.
    /// Nothing is reset between batches (the connections stay pooled or open), so b batches of N queries are b × N
    /// sequential queries, the same work as BenchmarkDotNet's repeated invocations in a throughput job.
    /// </summary>
    public static int Batches(string mode, int n) => Math.Max(1, MinQueries(mode) / n);
}
