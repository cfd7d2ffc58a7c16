using System.Data.Common;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using Orseis.Benchmarks.Infrastructure;
using Perfolizer.Horology;

namespace Orseis.Benchmarks.Overhead;

/// <summary>
/// What retries configured cost when nothing fails (issue 46), side by side: <see cref="OrmOverhead"/>'s Orseis rows
/// (one row by primary key from 5000, mapped to <see cref="Post"/>) without and with <c>OrseisOptions.Retry.Enabled</c>,
/// each pair declared one after the other so BenchmarkDotNet runs them back to back in one process; the one without
/// retries is its category's baseline, so Ratio is with / without. The Control pair runs the same ADO.NET read twice:
/// its ratio is the run's noise. Run it several times (rounds) for the spread between runs.
/// </summary>
[Config(typeof(RetriesOverheadConfig))]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
[CategoriesColumn]
public class RetriesOverhead : ProviderBenchmark
{
    private BenchDatabase? _database;
    private DbDataSource? _source;
    private DbConnection? _open;
    private readonly Database?[] _reuse = new Database?[2];
    private readonly Database?[] _perCall = new Database?[2];
    private readonly Session?[] _session = new Session?[2];
    private long _id;

    /// <summary>Creates and fills the table and, for each of without and with retries, the databases and a session.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _database = BenchDatabase.Create();
        PostsTable.CreateAndSeed(_database, OrmOverhead.Rows);
        _source = _database.CreateDataSource(_database.ConnectionString);
        _open = _source.OpenConnection();
#if ORSEIS_BASELINE
        throw new InvalidOperationException("RetriesOverhead needs an Orseis with retries (not OrseisBaseline=true).");
#else
        for (int i = 0; i < 2; i++)
        {
            var reuse = new OrseisOptions { Mode = ExecutionMode.ReuseConnection };
            var perCall = new OrseisOptions();
            reuse.Retry.Enabled = perCall.Retry.Enabled = i == 1;
            _reuse[i] = new Database(_database.Factory, _database.ConnectionString, reuse);
            _perCall[i] = new Database(_database.Factory, _database.ConnectionString, perCall);
            _session[i] = _perCall[i]!.OpenSession();
        }
#endif
    }

    /// <summary>Closes everything and deletes the temporary database.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        for (int i = 0; i < 2; i++)
        {
            _session[i]?.Dispose();
            _reuse[i]?.Dispose();
            _perCall[i]?.Dispose();
        }

        _open?.Dispose();
        _source?.Dispose();
        _database?.Dispose();
    }

    /// <summary>Hand-written ADO.NET on a kept connection (the noise pair's first).</summary>
    [Benchmark(Baseline = true)]
    [BenchmarkCategory("Control")]
    public Post AdoReuse() => Ado();

    /// <summary>The same ADO.NET read again (the noise pair's second).</summary>
    [Benchmark]
    [BenchmarkCategory("Control")]
    public Post AdoReuseAgain() => Ado();

    /// <summary>Orseis in ReuseConnection mode, no retries.</summary>
    [Benchmark(Baseline = true)]
    [BenchmarkCategory("ReuseConnection")]
    public Post ReuseConnection() => _reuse[0]!.QuerySingle<Post>(PostsTable.SelectById, new { Id = Step() });

    /// <summary>Orseis in ReuseConnection mode, retries configured.</summary>
    [Benchmark]
    [BenchmarkCategory("ReuseConnection")]
    public Post ReuseConnectionRetries() => _reuse[1]!.QuerySingle<Post>(PostsTable.SelectById, new { Id = Step() });

    /// <summary>An open Orseis session, no retries.</summary>
    [Benchmark(Baseline = true)]
    [BenchmarkCategory("Session")]
    public Post Session() => _session[0]!.QuerySingle<Post>(PostsTable.SelectById, new { Id = Step() });

    /// <summary>An open Orseis session of a database with retries configured.</summary>
    [Benchmark]
    [BenchmarkCategory("Session")]
    public Post SessionRetries() => _session[1]!.QuerySingle<Post>(PostsTable.SelectById, new { Id = Step() });

    /// <summary>Orseis opening a pooled connection per call (the default mode), no retries.</summary>
    [Benchmark(Baseline = true)]
    [BenchmarkCategory("OpenPerCall")]
    public Post OpenPerCall() => _perCall[0]!.QuerySingle<Post>(PostsTable.SelectById, new { Id = Step() });

    /// <summary>Orseis opening a pooled connection per call, retries configured.</summary>
    [Benchmark]
    [BenchmarkCategory("OpenPerCall")]
    public Post OpenPerCallRetries() => _perCall[1]!.QuerySingle<Post>(PostsTable.SelectById, new { Id = Step() });

    private Post Ado()
    {
        using DbCommand command = _open!.CreateCommand();
        command.CommandText = PostsTable.SelectById;
        DbParameter parameter = command.CreateParameter();
        parameter.ParameterName = "@Id";
        parameter.Value = Step();
        command.Parameters.Add(parameter);
        using DbDataReader reader = command.ExecuteReader();
        if (!reader.Read())
            throw new InvalidOperationException($"No post {_id}.");
        return new Post { Id = reader.GetInt64(0), Title = reader.GetString(1), Body = reader.GetString(2) };
    }

    private long Step()
    {
        _id++;
        if (_id > OrmOverhead.Rows)
            _id = 1;
        return _id;
    }
}

/// <summary>
/// In process (no build of its own; the pairs run back to back in one process): 3 warmup and 15 measured iterations of
/// about 250 ms a method.
/// </summary>
public sealed class RetriesOverheadConfig : ManualConfig
{
    /// <summary>Adds the job.</summary>
    public RetriesOverheadConfig() =>
        AddJob(Job.Default.WithId("InProcess").WithToolchain(InProcessEmitToolchain.Instance).WithWarmupCount(3)
            .WithIterationCount(15).WithIterationTime(TimeInterval.FromMilliseconds(250)));
}
