using BenchmarkDotNet.Attributes;

namespace Orseis.Benchmarks.Infrastructure;

/// <summary>
/// The base of every suite measured on one provider per process: the provider shows as a column, so results from
/// several providers can be told apart when put side by side.
/// </summary>
public abstract class ProviderBenchmark
{
    /// <summary>The provider this run measures.</summary>
    [ParamsSource(nameof(Providers))]
    public string Provider { get; set; } = "";

    /// <summary>The provider of this process (one value).</summary>
    public static IEnumerable<string> Providers => [BenchProviders.Name(BenchProviders.Current)];
}
