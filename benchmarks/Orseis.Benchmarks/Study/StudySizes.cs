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
    /// The rounds: <see cref="RoundsVariable"/>, else 12 (<see cref="DefaultRounds"/>). Each round measures every N once
    /// per variant; the ratio's confidence interval comes from the spread between rounds (at least 6 are needed).
    /// </summary>
    public static int Rounds =>
        int.TryParse(Environment.GetEnvironmentVariable(RoundsVariable), out int value) && value > 0 ? value : DefaultRounds;

    /// <summary>The rounds this process measures: the one of <see cref="RoundVariable"/>, else 1..<see cref="Rounds"/>.</summary>
    public static IEnumerable<int> RoundNumbers =>
        int.TryParse(Environment.GetEnvironmentVariable(RoundVariable), out int round) && round > 0 ? [round] : Enumerable.Range(1, Rounds);

    /// <summary>
    /// The default number of rounds, on SQLite and on a server: 12, the fewest for which the interval drops the two most
    /// extreme paired ratios at each end (k = 3), and what a server's study fits in its 30 minutes with the server and the
    /// client pinned to one core (about 20 minutes on MariaDB).
    /// </summary>
    public const int DefaultRounds = 12;

    /// <summary>The largest N whose calls are repeated on a server (<see cref="Iterations"/>): a call of 2^15 queries lasts 1–2 s.</summary>
    public const int LongCallN = 32768;

    /// <summary>
    /// Timed calls per mode in a case of <paramref name="n"/> queries, of which the fastest counts: 3, except on a
    /// server above <see cref="LongCallN"/>, where one call of each mode lasts 2–10 s and 1 is made. A disturbance (another
    /// process, the server's own background work) only ever adds time: the fastest of three short calls is the least
    /// disturbed one, and a call lasting seconds averages the disturbances within itself, as its tight interval shows.
    /// Three calls at every N would take a server's study past its 30 minutes. A case makes twice as many calls,
    /// alternating the modes.
    /// </summary>
    public static int Iterations(int n) => BenchProviders.Current != BenchProvider.Sqlite && n > LongCallN ? 1 : 3;

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
