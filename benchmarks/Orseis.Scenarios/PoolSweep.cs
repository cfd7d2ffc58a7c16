namespace Orseis.Scenarios;

/// <summary>Placeholder replaced below.</summary>
internal static class PoolSweep
{
    public static Task<int> RunAsync(string[] args) => Task.FromResult(args.Length);
}
