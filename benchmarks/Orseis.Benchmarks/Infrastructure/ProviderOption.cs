namespace Orseis.Benchmarks.Infrastructure;

/// <summary>Handles <c>--provider NAME</c>: exports it for BenchmarkDotNet's child processes, or says why it cannot run.</summary>
public static class ProviderOption
{
    /// <summary>
    /// Sets <see cref="BenchProviders.EnvironmentVariable"/> from <paramref name="name"/> (or keeps the current one).
    /// Returns null when the run can go ahead, else the exit code after printing why: 0 for a provider skipped because
    /// it has no server here (SQL Server), 2 for a bad name or a missing server that scripts/ can start.
    /// </summary>
    public static int? Apply(string? name)
    {
        BenchProvider provider;
        try
        {
            provider = name is null ? BenchProviders.Current : BenchProviders.Parse(name);
        }
        catch (ArgumentException error)
        {
            Console.Error.WriteLine(error.Message);
            return 2;
        }

        Environment.SetEnvironmentVariable(BenchProviders.EnvironmentVariable, BenchProviders.Name(provider));
        if (ProviderFactories.WhyUnavailable(provider) is { } why)
        {
            bool skipped = provider is BenchProvider.SqlServer;
            Console.Error.WriteLine($"{(skipped ? "SKIPPED" : "ERROR")}: provider '{BenchProviders.Name(provider)}' cannot run: {why}");
            return skipped ? 0 : 2;
        }

        Console.WriteLine($"Orseis benchmarks: provider = {BenchProviders.Name(provider)} ({ProviderFactories.Describe(ProviderFactories.Factory(provider))})");
        return null;
    }
}
