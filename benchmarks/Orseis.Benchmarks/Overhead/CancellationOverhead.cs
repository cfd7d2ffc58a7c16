using BenchmarkDotNet.Attributes;
using Orseis.Benchmarks.Costs;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Overhead;

/// <summary>
/// What it costs to give an async call a cancellable token or a timeout, which puts the call under a watch that returns
/// on time whatever the provider does: the same async scalar with no token, with a live (never cancelled) token, and
/// with a command timeout set, on a kept connection and opening per call.
/// </summary>
[Config(typeof(CostConfig))]
[MemoryDiagnoser]
public class CancellationOverhead : ProviderBenchmark
{
    private BenchDatabase? _database;
    private Database? _perCall;
    private Database? _timed;
    private Session? _session;
    private CancellationTokenSource? _live;

    /// <summary>none: CancellationToken.None; token: a cancellable token; timeout: OrseisOptions.CommandTimeout set.</summary>
    [Params("none", "token", "timeout")]
    public string Watch { get; set; } = "none";

    /// <summary>Creates the databases and the token.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _database = BenchDatabase.Create();
        _perCall = new Database(_database.Factory, _database.ConnectionString);
        _timed = new Database(_database.Factory, _database.ConnectionString, new OrseisOptions { CommandTimeout = TimeSpan.FromSeconds(30) });
        _session = (Watch == "timeout" ? _timed : _perCall).OpenSession();
        _live = new CancellationTokenSource();
    }

    /// <summary>Disposes everything.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _session?.Dispose();
        _perCall?.Dispose();
        _timed?.Dispose();
        _live?.Dispose();
        _database?.Dispose();
    }

    private CancellationToken Token => Watch == "token" ? _live!.Token : CancellationToken.None;

    /// <summary>One async scalar on a kept connection (a session).</summary>
    [Benchmark(Baseline = true)]
    public Task<long> SessionScalarAsync() => _session!.ScalarAsync<long>("select 1", cancellationToken: Token);

    /// <summary>One async scalar that opens and disposes a pooled connection.</summary>
    [Benchmark]
    public Task<long> OpenPerCallScalarAsync() => (Watch == "timeout" ? _timed! : _perCall!).ScalarAsync<long>("select 1", cancellationToken: Token);
}
