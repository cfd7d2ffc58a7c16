using System.Data.Common;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Filters;
using BenchmarkDotNet.Jobs;
using Dapper;
using Orseis.Benchmarks.Infrastructure;
using Perfolizer.Horology;

namespace Orseis.Benchmarks.Overhead;

/// <summary>
/// One row by primary key from a 5000-row table, mapped to <see cref="Post"/> (the shape of Dapper's performance
/// suite): hand-written ADO.NET (baseline), Dapper and Orseis, each on a kept connection and opening one per call.
/// <see cref="Retries"/> runs the Orseis rows again with retries configured and nothing failing (issue 46's cost).
/// </summary>
[Config(typeof(OrmOverheadConfig))]
public class OrmOverhead : ProviderBenchmark
{
    /// <summary>Rows in the table.</summary>
    public const int Rows = 5000;

    private BenchDatabase? _database;
    private DbDataSource? _source;
    private DbConnection? _open;
    private Database? _orseisReuse;
    private Database? _orseisPerCall;
    private Session? _session;
    private long _id;

    /// <summary>
    /// Whether the Orseis databases have retries configured (<c>OrseisOptions.Retry.Enabled</c>; nothing fails, so none
    /// runs). False is the rows as they always were; the ADO.NET and Dapper rows do not read it (RetriesOverhead runs the
    /// two back to back).
    /// </summary>
    [Params(false, true)]
    public bool Retries { get; set; }

    /// <summary>Creates and fills the table, opens the kept connections and warms every path once.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _database = BenchDatabase.Create();
        PostsTable.CreateAndSeed(_database, Rows);
        _source = _database.CreateDataSource(_database.ConnectionString);
        _open = _source.OpenConnection();
        var reuse = new OrseisOptions { Mode = ExecutionMode.ReuseConnection };
        var perCall = new OrseisOptions();
        bool retries = Retries;
#if ORSEIS_BASELINE
        if (retries)
            throw new InvalidOperationException("The baseline Orseis (OrseisBaseline=true) has no retries: run it with Retries=False.");
#else
        reuse.Retry.Enabled = perCall.Retry.Enabled = retries;
#endif
        _orseisReuse = new Database(_database.Factory, _database.ConnectionString, reuse);
        _orseisPerCall = new Database(_database.Factory, _database.ConnectionString, perCall);
        _session = _orseisPerCall.OpenSession();
        Check(AdoReuse());
        Check(AdoOpenPerCall());
        Check(DapperReuse());
        Check(DapperOpenPerCall());
        Check(OrseisReuseConnection());
        Check(OrseisSession());
        Check(OrseisOpenPerCall());
    }

    /// <summary>Closes everything and deletes the temporary database.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _session?.Dispose();
        _orseisReuse?.Dispose();
        _orseisPerCall?.Dispose();
        _open?.Dispose();
        _source?.Dispose();
        _database?.Dispose();
    }

    /// <summary>Hand-written ADO.NET on a kept connection: command, parameter, reader, typed getters.</summary>
    [Benchmark(Baseline = true)]
    public Post AdoReuse() => ReadPost(_open!, Step());

    /// <summary>Hand-written ADO.NET opening a pooled connection per call.</summary>
    [Benchmark]
    public Post AdoOpenPerCall()
    {
        using DbConnection connection = _source!.OpenConnection();
        return ReadPost(connection, Step());
    }

    /// <summary>Dapper on a kept connection.</summary>
    [Benchmark]
    public Post DapperReuse() => _open!.QuerySingle<Post>(PostsTable.SelectById, new { Id = Step() });

    /// <summary>Dapper opening a pooled connection per call.</summary>
    [Benchmark]
    public Post DapperOpenPerCall()
    {
        using DbConnection connection = _source!.OpenConnection();
        return connection.QuerySingle<Post>(PostsTable.SelectById, new { Id = Step() });
    }

    /// <summary>Orseis, database in <see cref="ExecutionMode.ReuseConnection"/>.</summary>
    [Benchmark]
    public Post OrseisReuseConnection() => _orseisReuse!.QuerySingle<Post>(PostsTable.SelectById, new { Id = Step() });

    /// <summary>Orseis, an open <see cref="Orseis.Session"/>.</summary>
    [Benchmark]
    public Post OrseisSession() => _session!.QuerySingle<Post>(PostsTable.SelectById, new { Id = Step() });

    /// <summary>Orseis, database in <see cref="ExecutionMode.OpenPerCall"/>.</summary>
    [Benchmark]
    public Post OrseisOpenPerCall() => _orseisPerCall!.QuerySingle<Post>(PostsTable.SelectById, new { Id = Step() });

    private long Step()
    {
        _id++;
        if (_id > Rows)
            _id = 1;
        return _id;
    }

    private static Post ReadPost(DbConnection connection, long id)
    {
        using DbCommand command = connection.CreateCommand();
        command.CommandText = PostsTable.SelectById;
        DbParameter parameter = command.CreateParameter();
        parameter.ParameterName = "@Id";
        parameter.Value = id;
        command.Parameters.Add(parameter);
        using DbDataReader reader = command.ExecuteReader();
        if (!reader.Read())
            throw new InvalidOperationException($"No post {id}.");
        return new Post
        {
            Id = reader.GetInt64(0),
            Title = reader.GetString(1),
            Body = reader.GetString(2),
            CreatedAt = reader.GetDateTime(3),
            UpdatedAt = reader.IsDBNull(4) ? null : reader.GetDateTime(4),
            Score = reader.GetDouble(5),
            Views = reader.GetInt32(6),
            IsPublished = reader.GetBoolean(7),
            AuthorId = reader.IsDBNull(8) ? null : reader.GetInt64(8),
            Rating = reader.IsDBNull(9) ? null : reader.GetDecimal(9),
        };
    }

    private void Check(Post post)
    {
        if (post.Id != _id || post.Title != $"Post number {post.Id}" || post.CreatedAt.Year != 2014 || post.Views != post.Id * 3)
            throw new InvalidOperationException($"Post {_id} came back wrong (id {post.Id}, title '{post.Title}', created {post.CreatedAt:O}).");
    }
}

/// <summary>
/// A throughput job kept short: 3 warmup and 10 measured iterations of about 250 ms. Side by side with an older Orseis
/// (<see cref="BaselineJobs"/>) the job is doubled and only Retries=False runs: the older Orseis may have no retries.
/// </summary>
public sealed class OrmOverheadConfig : ManualConfig
{
    /// <summary>Adds the job.</summary>
    public OrmOverheadConfig()
    {
        Job job = Job.Default.WithId("Throughput").WithWarmupCount(3).WithIterationCount(10)
            .WithIterationTime(TimeInterval.FromMilliseconds(250));
        BaselineJobs.Add(this, job);
        if (BaselineJobs.SideBySide)
            AddFilter(new SimpleFilter(c => c.Parameters.Items.All(p => p.Name != nameof(OrmOverhead.Retries) || p.Value is false)));
    }
}
