namespace Orseis.Benchmarks.Infrastructure;

/// <summary>Handles <c>--provider NAME</c>: removes it from the arguments and exports it for child processes.</summary>
public static class ProviderOption
{
    /// <summary>The exit code when <see cref="Apply"/> returned false: 0 for a skipped provider, 2 for a bad argument.</summary>
    public static int ExitCode { get; private set; }

    /// <summary>
    /// Takes <c>--provider NAME</c> out of <paramref name="args"/> and sets <see cref="BenchProviders.EnvironmentVariable"/>.
    /// Returns false (after printing why) when the run cannot go ahead.
    /// </summary>
    public static bool Apply(ref string[] args)
    {
        var rest = new List<string>(args.Length);
        string? name = null;
        for (int i = 0; i < args.Length; i++)
        {
            if (args[i] is "--provider" or "-provider" && i + 1 < args.Length)
                name = args[++i];
            else if (args[i].StartsWith("--provider=", StringComparison.Ordinal))
                name = args[i]["--provider=".Length..];
            else
                rest.Add(args[i]);
        }

        args = [.. rest];
        BenchProvider provider;
        try
        {
            provider = name is null ? BenchProviders.Current : BenchProviders.Parse(name);
        }
        catch (ArgumentException error)
        {
            Console.Error.WriteLine(error.Message);
            ExitCode = 2;
            return false;
        }

        Environment.SetEnvironmentVariable(BenchProviders.EnvironmentVariable, BenchProviders.Name(provider));
        if (ProviderFactories.WhyUnavailable(provider) is { } why)
        {
            bool skipped = provider is BenchProvider.SqlServer;
            Console.Error.WriteLine($"{(skipped ? "SKIPPED" : "ERROR")}: provider '{BenchProviders.Name(provider)}' cannot run: {why}");
            ExitCode = skipped ? 0 : 2;
            return false;
        }

        Console.WriteLine($"Orseis benchmarks: provider = {BenchProviders.Name(provider)} ({ProviderFactories.Describe(ProviderFactories.Factory(provider))})");
        return true;
    }
}
