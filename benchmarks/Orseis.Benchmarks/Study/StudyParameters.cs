using BenchmarkDotNet.Attributes;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Study;

/// <summary>
/// What the study is parameterised by: the provider (one value, from the environment, so result tables and files say
/// which database produced them), the library the queries go through, N (sequential queries per call) and the round.
/// </summary>
public abstract class StudyParameters
{
    /// <summary>The query every call runs: no table, no I/O, as small as a round trip gets.</summary>
    public const string Sql = "select 1";

    /// <summary>Queries through Orseis (<c>Scalar&lt;long&gt;</c>).</summary>
    public const string Orseis = "Orseis";

    /// <summary>Queries through raw ADO.NET (a new command per query, <c>ExecuteScalar</c>).</summary>
    public const string AdoNet = "ADO.NET";

    /// <summary>The provider this run measures.</summary>
    [ParamsSource(nameof(Providers))]
    public string Provider { get; set; } = "";

    /// <summary><see cref="Orseis"/> or <see cref="AdoNet"/>.</summary>
    [Params(Orseis, AdoNet)]
    public string Library { get; set; } = Orseis;

    /// <summary>Number of sequential queries in one benchmark call.</summary>
    [ParamsSource(nameof(Sizes))]
    public int N { get; set; }

    /// <summary>The round (1..<see cref="StudySizes.Rounds"/>): each round measures every case once, the modes back to back.</summary>
    [ParamsSource(nameof(RoundNumbers))]
    public int Round { get; set; }

    /// <summary>The provider of this process (one value).</summary>
    public static IEnumerable<string> Providers => [BenchProviders.Name(BenchProviders.Current)];

    /// <summary>The N values (BenchmarkDotNet's source for <see cref="N"/>).</summary>
    public static IEnumerable<int> Sizes => StudySizes.All;

    /// <summary>The round numbers this process measures (<see cref="StudySizes.RoundNumbers"/>).</summary>
    public static IEnumerable<int> RoundNumbers => StudySizes.RoundNumbers;
}
