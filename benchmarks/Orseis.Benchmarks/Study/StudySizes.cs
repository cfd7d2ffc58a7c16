namespace Orseis.Benchmarks.Study;

/// <summary>
/// The study's N values, 2^1..2^17 as in the original: up to 2^11 in a throughput job, 2^12 and up in a monitoring
/// job. <c>ORSEIS_STUDY_MAX_N</c> caps N for smoke runs; a range left empty by the cap runs N = cap alone.
/// </summary>
public static class StudySizes
{
    /// <summary>The environment variable that caps N.</summary>
    public const string MaxNVariable = "ORSEIS_STUDY_MAX_N";

    /// <summary>N = 2^1..2^11, capped.</summary>
    public static IEnumerable<int> Small => Capped(1, 11);

    /// <summary>N = 2^12..2^17, capped.</summary>
    public static IEnumerable<int> Large => Capped(12, 17);

    private static int[] Capped(int fromExponent, int toExponent)
    {
        int cap = int.TryParse(Environment.GetEnvironmentVariable(MaxNVariable), out int value) && value > 0 ? value : int.MaxValue;
        int[] sizes = Enumerable.Range(fromExponent, toExponent - fromExponent + 1).Select(e => 1 << e).Where(n => n <= cap).ToArray();
        return sizes.Length > 0 ? sizes : [cap];
    }
}
