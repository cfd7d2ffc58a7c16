using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using Orseis.Benchmarks.Costs;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Overhead;

/// <summary>
/// What a <see cref="ConnectionScope"/> costs an async flow that yields between its calls. The scope's
/// <see cref="AsyncLocal{T}"/> has a change callback (it keeps a thread-static mirror of the flow's scope), which .NET
/// runs on every execution-context switch of a flow that began a scope: twice for each await that resumes on a pool
/// thread. Category <c>Yields</c> times only the awaits (<see cref="Task.Yield"/>, <see cref="Steps"/> an operation): in
/// no context of its own (the baseline), under a plain <see cref="AsyncLocal{T}"/> without a callback (a context to
/// switch to, as in every ASP.NET Core request), and inside a scope. Category <c>Calls</c> yields before each of
/// <see cref="Steps"/> async <c>select 1</c> calls: on a session (the baseline), in a scope, and open per call (the same
/// code without a scope). Time and bytes are per step (one yield, or one yield and one call).
/// </summary>
[Config(typeof(CostConfig))]
[MemoryDiagnoser]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
[CategoriesColumn]
public class ScopeFlowOverhead : ProviderBenchmark
{
    /// <summary>Steps (a yield, or a yield and a call) an operation.</summary>
    public const int Steps = 32;

    private static readonly AsyncLocal<object?> Plain = new();
    private BenchDatabase? _database;
    private Database? _db;

    /// <summary>Creates the database.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _database = BenchDatabase.Create();
        _db = new Database(_database.Factory, _database.ConnectionString);
    }

    /// <summary>Disposes the database.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _db?.Dispose();
        _database?.Dispose();
    }

    /// <summary>Awaits that yield, in the default context.</summary>
    [Benchmark(Baseline = true, OperationsPerInvoke = Steps)]
    [BenchmarkCategory("Yields")]
    public async Task YieldsNoContext()
    {
        for (int i = 0; i < Steps; i++)
            await Task.Yield();
    }

    /// <summary>The same under a plain AsyncLocal (no change callback): the context switches, nothing runs.</summary>
    [Benchmark(OperationsPerInvoke = Steps)]
    [BenchmarkCategory("Yields")]
    public async Task YieldsPlainAsyncLocal()
    {
        Plain.Value = this;
        for (int i = 0; i < Steps; i++)
            await Task.Yield();
        Plain.Value = null;
    }

    /// <summary>The same inside a scope: each switch runs the scope's change callback.</summary>
    [Benchmark(OperationsPerInvoke = Steps)]
    [BenchmarkCategory("Yields")]
    public async Task YieldsInScope()
    {
        await using (_db!.BeginScope())
        {
            for (int i = 0; i < Steps; i++)
                await Task.Yield();
        }
    }

    /// <summary>A yield before each call, on a session opened for the flow.</summary>
    [Benchmark(Baseline = true, OperationsPerInvoke = Steps)]
    [BenchmarkCategory("Calls")]
    public async Task<long> CallsOnSession()
    {
        long sum = 0;
        await using Session session = await _db!.OpenSessionAsync();
        for (int i = 0; i < Steps; i++)
        {
            await Task.Yield();
            sum += await session.ScalarAsync<long>("select 1");
        }

        return sum;
    }

    /// <summary>The same open-per-call code inside a scope.</summary>
    [Benchmark(OperationsPerInvoke = Steps)]
    [BenchmarkCategory("Calls")]
    public async Task<long> CallsInScope()
    {
        long sum = 0;
        await using (_db!.BeginScope())
        {
            for (int i = 0; i < Steps; i++)
            {
                await Task.Yield();
                sum += await _db.ScalarAsync<long>("select 1");
            }
        }

        return sum;
    }

    /// <summary>The same code without a scope: an open per call.</summary>
    [Benchmark(OperationsPerInvoke = Steps)]
    [BenchmarkCategory("Calls")]
    public async Task<long> CallsWithoutScope()
    {
        long sum = 0;
        for (int i = 0; i < Steps; i++)
        {
            await Task.Yield();
            sum += await _db!.ScalarAsync<long>("select 1");
        }

        return sum;
    }
}
