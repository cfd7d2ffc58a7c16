using System.Collections.Concurrent;
using System.Reflection;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using Microsoft.Data.Sqlite;
using Orseis.Benchmarks.Overhead;
using Orseis.Shapes;
using Perfolizer.Horology;

namespace Orseis.ShapeOverhead;

/// <summary>
/// OrmOverhead's Orseis rows on SQLite (one <see cref="Post"/> by primary key, with an anonymous-object argument) and ten
/// rows at once, mapped and bound over the generated shapes (<see cref="Generated"/> true) or over the mappers and
/// binders compiled at run time (false: the path of a process without the generator, or with
/// <c>Orseis.DisableGeneratedShapes</c>). Hand-written ADO.NET is the baseline of each.
/// </summary>
[Config(typeof(ShapeOverheadConfig))]
[MemoryDiagnoser]
public class ShapeOverhead
{
    private const int Rows = 5000;
    private const string SelectById =
        "select Id, Title, Body, CreatedAt, UpdatedAt, Score, Views, IsPublished, AuthorId, Rating from Posts where Id = @Id";
    private const string SelectTen =
        "select Id, Title, Body, CreatedAt, UpdatedAt, Score, Views, IsPublished, AuthorId, Rating from Posts where Id between @From and @To";

    private string _file = "";
    private SqliteConnection? _open;
    private Database? _perCall;
    private Session? _session;
    private long _id;

    /// <summary>True: the generated shapes; false: mappers and binders compiled at run time.</summary>
    [Params(false, true)]
    public bool Generated { get; set; }

    /// <summary>Creates the table, sets the mode, warms every path and checks that the mode is the one asked for.</summary>
    [GlobalSetup]
    public void Setup()
    {
        Prepare();
        Check(Ado());
        Check(OrseisSession());
        Check(OrseisOpenPerCall());
        if (OrseisSessionTen().Count != 10)
            throw new InvalidOperationException("ten rows expected");
    }

    /// <summary>Sets the mode and creates the table (no call made yet).</summary>
    internal void Prepare()
    {
        // The switch is read when a type's mapper or binder is first built: set before any call.
        typeof(ShapeRegistry).GetProperty("Enabled", BindingFlags.NonPublic | BindingFlags.Static)!.SetValue(null, Generated);
        var rows = (ConcurrentDictionary<Type, object>)typeof(ShapeRegistry)
            .GetField("Rows", BindingFlags.NonPublic | BindingFlags.Static)!.GetValue(null)!;
        if (!rows.ContainsKey(typeof(Post)))
            throw new InvalidOperationException("No generated shape for Post: is the source generator referenced?");

        _file = Path.Combine(Path.GetTempPath(), $"orseis-shapes-{Environment.ProcessId}.db");
        string connectionString = $"Data Source={_file}";
        _open = new SqliteConnection(connectionString);
        _open.Open();
        Seed(_open);
        _perCall = new Database(SqliteFactory.Instance, connectionString);
        _session = _perCall.OpenSession();
    }

    /// <summary>Closes everything and deletes the database file.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _session?.Dispose();
        _perCall?.Dispose();
        _open?.Dispose();
        SqliteConnection.ClearAllPools();
        File.Delete(_file);
    }

    /// <summary>Hand-written ADO.NET on a kept connection.</summary>
    [Benchmark(Baseline = true)]
    public Post Ado()
    {
        long id = Step();
        using SqliteCommand command = _open!.CreateCommand();
        command.CommandText = SelectById;
        command.Parameters.AddWithValue("@Id", id);
        using SqliteDataReader reader = command.ExecuteReader();
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

    /// <summary>Orseis, an open session: one row.</summary>
    [Benchmark]
    public Post OrseisSession() => _session!.QuerySingle<Post>(SelectById, new { Id = Step() });

    /// <summary>Orseis, open per call: one row.</summary>
    [Benchmark]
    public Post OrseisOpenPerCall() => _perCall!.QuerySingle<Post>(SelectById, new { Id = Step() });

    /// <summary>Orseis, an open session: ten rows.</summary>
    [Benchmark]
    public List<Post> OrseisSessionTen()
    {
        long from = Step();
        return _session!.Query<Post>(SelectTen, new { From = from, To = from + 9 });
    }

    /// <summary>The next id, within 1000 to 4990: every id has four digits, so every row's strings are the same length
    /// and the bytes a call allocates do not grow with how many calls a case got through.</summary>
    private long Step()
    {
        _id++;
        if (_id < 1000 || _id > Rows - 10)
            _id = 1000;
        return _id;
    }

    private void Check(Post post)
    {
        if (post.Id != _id || post.Title != $"Post number {post.Id}" || post.Views != post.Id * 3 || post.UpdatedAt.HasValue != (post.Id % 2 == 0))
            throw new InvalidOperationException($"Post {_id} came back wrong (id {post.Id}, title '{post.Title}').");
    }

    private static void Seed(SqliteConnection connection)
    {
        using (SqliteCommand create = connection.CreateCommand())
        {
            create.CommandText = "drop table if exists Posts; create table Posts (Id bigint primary key, Title text not null, " +
                "Body text not null, CreatedAt timestamp not null, UpdatedAt timestamp null, Score double precision not null, " +
                "Views int not null, IsPublished boolean not null, AuthorId bigint null, Rating numeric(5,2) null)";
            create.ExecuteNonQuery();
        }
        using SqliteTransaction transaction = connection.BeginTransaction();
        using SqliteCommand insert = connection.CreateCommand();
        insert.CommandText = "insert into Posts values (@Id, @Title, @Body, @CreatedAt, @UpdatedAt, @Score, @Views, @IsPublished, @AuthorId, @Rating)";
        var start = new DateTime(2014, 11, 10, 8, 0, 0, DateTimeKind.Unspecified);
        for (int id = 1; id <= Rows; id++)
        {
            insert.Parameters.Clear();
            insert.Parameters.AddWithValue("@Id", (long)id);
            insert.Parameters.AddWithValue("@Title", $"Post number {id}");
            insert.Parameters.AddWithValue("@Body", string.Concat(Enumerable.Repeat($"Body of post {id}. ", 10)));
            insert.Parameters.AddWithValue("@CreatedAt", start.AddMinutes(id));
            insert.Parameters.AddWithValue("@UpdatedAt", id % 2 == 0 ? start.AddMinutes(id + 60) : DBNull.Value);
            insert.Parameters.AddWithValue("@Score", id / 7.0);
            insert.Parameters.AddWithValue("@Views", id * 3);
            insert.Parameters.AddWithValue("@IsPublished", id % 4 != 0);
            insert.Parameters.AddWithValue("@AuthorId", id % 3 == 0 ? DBNull.Value : (long)(id % 50));
            insert.Parameters.AddWithValue("@Rating", id % 5 == 0 ? DBNull.Value : (decimal)(id % 500) / 100m);
            insert.ExecuteNonQuery();
        }
        transaction.Commit();
    }
}

/// <summary>OrmOverhead's job: 3 warmup and 10 measured iterations of about 250 ms. Each case runs in its own process (the
/// mode is fixed at a type's first call), built with time to spare on a loaded machine.</summary>
public sealed class ShapeOverheadConfig : ManualConfig
{
    /// <summary>Adds the job.</summary>
    public ShapeOverheadConfig()
    {
        AddJob(Job.Default.WithId("Throughput").WithWarmupCount(3).WithIterationCount(10).WithIterationTime(TimeInterval.FromMilliseconds(250)));
        WithBuildTimeout(TimeSpan.FromMinutes(20));
    }
}
