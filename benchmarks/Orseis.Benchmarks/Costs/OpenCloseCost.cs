using System.Data.Common;
using BenchmarkDotNet.Attributes;
using Orseis.Benchmarks.Infrastructure;

namespace Orseis.Benchmarks.Costs;

/// <summary>
/// The original study's "500 opens" measurement: 500 connections opened and closed, no query, pooled (baseline)
/// and with <c>Pooling=false</c>; on PostgreSQL also pooled with <c>No Reset On Close=true</c>.
/// </summary>
[Config(typeof(CostConfig))]
public class OpenCloseCost : ProviderBenchmark
{
    /// <summary>Opens per benchmark call, as in the 2014 study.</summary>
    public const int Opens = 500;

    private BenchDatabase? _database;
    private DbDataSource? _pooled;
    private DbDataSource? _unpooled;
    private DbDataSource? _noReset;

    /// <summary>Creates the data sources and fills the pools once.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _database = BenchDatabase.Create();
        _pooled = _database.CreateDataSource(_database.ConnectionString);
        _unpooled = _database.CreateDataSource(_database.Unpooled);
        if (_database.NoResetOnClose is { } noReset)
            _noReset = _database.CreateDataSource(noReset);
        OpenClose(_pooled);
        if (_noReset is not null)
            OpenClose(_noReset);
    }

    /// <summary>Disposes the data sources and the temporary database.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _pooled?.Dispose();
        _unpooled?.Dispose();
        _noReset?.Dispose();
        _database?.Dispose();
    }

    /// <summary>500 pooled open/close pairs.</summary>
    [Benchmark(Baseline = true)]
    public int OpenClosePooled() => OpenClose(_pooled!);

    /// <summary>500 real opens and closes.</summary>
    [Benchmark]
    public int OpenCloseUnpooled() => OpenClose(_unpooled!);

    /// <summary>PostgreSQL and MySqlConnector: 500 pooled open/close pairs without the reset on close.</summary>
    [Benchmark]
    public int OpenCloseNoResetOnClose() => OpenClose(_noReset ?? throw new InvalidOperationException("No Reset On Close exists only on PostgreSQL (No Reset On Close) and MySqlConnector (Connection Reset=false)."));

    private static int OpenClose(DbDataSource source)
    {
        int opened = 0;
        for (int i = 0; i < Opens; i++)
        {
            using DbConnection connection = source.OpenConnection();
            opened += (int)connection.State;
        }

        return opened;
    }
}
