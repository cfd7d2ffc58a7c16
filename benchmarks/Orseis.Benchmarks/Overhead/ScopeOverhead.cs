using BenchmarkDotNet.Attributes;
using Orseis.Benchmarks.Costs;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Overhead;

/// <summary>
/// One call in a unit of work of <see cref="Calls"/> back-to-back calls, four ways: on a session opened for the unit
/// (the baseline: code rewritten to hold a connection), in a <see cref="ConnectionScope"/> (the same open-per-call code,
/// sharing the parked connection), open per call, and on a ReuseConnection database. Reports time and bytes per call,
/// with the session's open and the scope's first open spread over the unit.
/// </summary>
[Config(typeof(CostConfig))]
[MemoryDiagnoser]
public class ScopeOverhead : ProviderBenchmark
{
    private BenchDatabase? _database;
    private Database? _perCall;
    private Database? _reuse;

    /// <summary>Calls per unit of work.</summary>
    [Params(64)]
    public int Calls { get; set; }

    /// <summary>Creates the databases.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _database = BenchDatabase.Create();
        _perCall = new Database(_database.Factory, _database.ConnectionString);
        _reuse = new Database(_database.Factory, _database.ConnectionString, new OrseisOptions { Mode = ExecutionMode.ReuseConnection });
    }

    /// <summary>Disposes everything.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _perCall?.Dispose();
        _reuse?.Dispose();
        _database?.Dispose();
    }

    /// <summary>A session per unit of work.</summary>
    [Benchmark(Baseline = true, OperationsPerInvoke = 64)]
    public long Session()
    {
        long sum = 0;
        using Session session = _perCall!.OpenSession();
        for (int i = 0; i < Calls; i++)
            sum += session.Scalar<long>("select 1");
        return sum;
    }

    /// <summary>The same calls on the database, inside a scope per unit of work.</summary>
    [Benchmark(OperationsPerInvoke = 64)]
    public long Scope()
    {
        long sum = 0;
        using (_perCall!.BeginScope())
        {
            for (int i = 0; i < Calls; i++)
                sum += _perCall.Scalar<long>("select 1");
        }

        return sum;
    }

    /// <summary>The same calls on the database without a scope: an open per call.</summary>
    [Benchmark(OperationsPerInvoke = 64)]
    public long OpenPerCall()
    {
        long sum = 0;
        for (int i = 0; i < Calls; i++)
            sum += _perCall!.Scalar<long>("select 1");
        return sum;
    }

    /// <summary>The same calls on a ReuseConnection database.</summary>
    [Benchmark(OperationsPerInvoke = 64)]
    public long ReuseConnection()
    {
        long sum = 0;
        for (int i = 0; i < Calls; i++)
            sum += _reuse!.Scalar<long>("select 1");
        return sum;
    }

    /// <summary>The same calls async, inside a scope per unit of work.</summary>
    [Benchmark(OperationsPerInvoke = 64)]
    public async Task<long> ScopeAsync()
    {
        long sum = 0;
        await using (_perCall!.BeginScope())
        {
            for (int i = 0; i < Calls; i++)
                sum += await _perCall.ScalarAsync<long>("select 1");
        }

        return sum;
    }

    /// <summary>The same calls async on a session per unit of work.</summary>
    [Benchmark(OperationsPerInvoke = 64)]
    public async Task<long> SessionAsync()
    {
        long sum = 0;
        await using Session session = await _perCall!.OpenSessionAsync();
        for (int i = 0; i < Calls; i++)
            sum += await session.ScalarAsync<long>("select 1");
        return sum;
    }
}
