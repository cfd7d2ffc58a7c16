using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using Orseis.Benchmarks.Infrastructure;
using Orseis.Diagnostics;

namespace Orseis.Benchmarks.Overhead;

/// <summary>
/// What the repeated-statement detector (<see cref="FindingKind.RepeatedStatement"/>) costs on a web request's shape,
/// side by side: every detector but it (the baseline) against every detector (<see cref="FindingKind.All"/>). A request
/// is an async unit of work of four different statements with arguments (a row by id, ten rows by range, an update, a
/// count), either inside a <see cref="ConnectionScope"/> (what <c>UseOrseisScopes</c> gives each ASP.NET Core request)
/// or opening a pooled connection per call; each request is its own async flow, as ASP.NET Core's requests are. The
/// Ratio column is All / All-but-RepeatedStatement; the target is within 1 % in time, and the same bytes.
/// </summary>
[Config(typeof(OverheadConfig))]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory, BenchmarkLogicalGroupRule.ByParams)]
[CategoriesColumn]
public class RepeatedStatementOverhead : ProviderBenchmark
{
    private const string InScope = "Scope";
    private const string PerCall = "OpenPerCall";
    private const int Rows = 100;
    private BenchDatabase? _database;
    private Database? _db;
    private long _request;

    /// <summary>Every detector but <see cref="FindingKind.RepeatedStatement"/>.</summary>
    public const FindingKind WithoutRepeats = FindingKind.All & ~FindingKind.RepeatedStatement;

    /// <summary>Creates the table and the database with every detector but the repeated-statement one.</summary>
    [GlobalSetup(Targets = [nameof(ScopeWithoutRepeats), nameof(OpenPerCallWithoutRepeats)])]
    public void SetupWithout() => Setup(WithoutRepeats);

    /// <summary>Creates the table and the database with every detector.</summary>
    [GlobalSetup(Targets = [nameof(ScopeAll), nameof(OpenPerCallAll)])]
    public void SetupAll() => Setup(FindingKind.All);

    /// <summary>Disposes everything.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _db?.Dispose();
        _database?.Dispose();
    }

    /// <summary>A request in a scope, without the repeated-statement detector.</summary>
    [Benchmark(Baseline = true)]
    [BenchmarkCategory(InScope)]
    public Task<long> ScopeWithoutRepeats() => ScopedRequestAsync();

    /// <summary>A request in a scope, every detector.</summary>
    [Benchmark]
    [BenchmarkCategory(InScope)]
    public Task<long> ScopeAll() => ScopedRequestAsync();

    /// <summary>A request opening per call, without the repeated-statement detector.</summary>
    [Benchmark(Baseline = true)]
    [BenchmarkCategory(PerCall)]
    public Task<long> OpenPerCallWithoutRepeats() => RequestAsync(_db!, Interlocked.Increment(ref _request));

    /// <summary>A request opening per call, every detector.</summary>
    [Benchmark]
    [BenchmarkCategory(PerCall)]
    public Task<long> OpenPerCallAll() => RequestAsync(_db!, Interlocked.Increment(ref _request));

    /// <summary>The request's four statements; <paramref name="request"/> picks the rows (they differ from one request to the next).</summary>
    public static async Task<long> RequestAsync(Database db, long request)
    {
        long id = (request % Rows) + 1;
        long from = ((request * 7) % (Rows - 10)) + 1;
        long to = from + 9;
        long author = request % 50;
        Post post = await db.QuerySingleAsync<Post>($"select Id, Title, Body, CreatedAt, UpdatedAt, Score, Views, IsPublished, AuthorId, Rating from Posts where Id = {id}");
        List<Post> page = await db.QueryAsync<Post>($"select Id, Title, Body, CreatedAt, UpdatedAt, Score, Views, IsPublished, AuthorId, Rating from Posts where Id between {from} and {to}");
        int updated = await db.ExecuteAsync($"update Posts set Views = Views + 1 where Id = {id}");
        long count = await db.ScalarAsync<long>($"select count(*) from Posts where AuthorId = {author}");
        return post.Id + page.Count + updated + count;
    }

    private async Task<long> ScopedRequestAsync()
    {
        await using (_db!.BeginScope())
            return await RequestAsync(_db, Interlocked.Increment(ref _request));
    }

    private void Setup(FindingKind detectors)
    {
        _database = BenchDatabase.Create();
        PostsTable.CreateAndSeed(_database, Rows);
        var options = new OrseisOptions();
        options.Diagnostics.Detectors = detectors;
        _db = new Database(_database.Factory, _database.ConnectionString, options);
    }
}
