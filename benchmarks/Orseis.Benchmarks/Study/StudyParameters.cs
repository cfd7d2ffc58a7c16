using BenchmarkDotNet.Attributes;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Study;

/// <summary>
/// What every study class is parameterised by: the provider (one value, from the environment, so result tables and
/// files say which database produced them) and N, the number of sequential queries per call.
/// </summary>
public abstract class StudyParameters
{
    /// <summary>The query every iteration runs: no table, no I/O, as small as a round trip gets.</summary>
    public const string Sql = "select 1";

    /// <summary>The provider this run measures.</summary>
    [ParamsSource(nameof(Providers))]
    public string Provider { get; set; } = "";

    /// <summary>Number of sequential queries in one benchmark call.</summary>
    [ParamsSource(nameof(Sizes))]
    public int N { get; set; }

    /// <summary>The provider of this process (one value).</summary>
    public static IEnumerable<string> Providers => [BenchProviders.Name(BenchProviders.Current)];

    /// <summary>The N values of this class (BenchmarkDotNet's source for <see cref="N"/>).</summary>
    public IEnumerable<int> Sizes => SizeRange;

    /// <summary>The N values of the concrete class: <see cref="StudySizes.Small"/> or <see cref="StudySizes.Large"/>.</summary>
    protected abstract IEnumerable<int> SizeRange { get; }
}
