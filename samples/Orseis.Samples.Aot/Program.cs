// A Native AOT app over SQLite: every kind of call a small service makes, with the detectors on. Publish it native and
// run it, then run it under the JIT: both print the same lines (tests/Orseis.EndToEndTests/AotPublishTests).
//
//   dotnet publish samples/Orseis.Samples.Aot -c Release -r linux-x64 -p:PublishAot=true -o /tmp/aot
//   cd "$(mktemp -d)" && /tmp/aot/Orseis.Samples.Aot
//   ORSEIS_MYSQL="Server=127.0.0.1;Port=3306;User ID=root;Database=test" /tmp/aot/Orseis.Samples.Aot mariadb
using Microsoft.Data.Sqlite;
using Orseis;
using Orseis.Diagnostics;

if (args is ["mariadb"])
{
    // The server part (OnMariaDb.cs): MySqlConnector against the server ORSEIS_MYSQL names.
    await OnMariaDb.RunAsync(Environment.GetEnvironmentVariable("ORSEIS_MYSQL")
        ?? throw new InvalidOperationException("Set ORSEIS_MYSQL to a MariaDB or MySQL connection string to run the mariadb part."));
    return;
}

string file = Path.Combine(Environment.CurrentDirectory, "aot-sample.db");
File.Delete(file);
var options = new OrseisOptions { Mode = ExecutionMode.OpenPerCall, Diagnostics = { Detectors = FindingKind.All } };
await using (var db = new Database(SqliteFactory.Instance, $"Data Source={file}", options))
{
    // The README's example.
    await db.ExecuteAsync("create table if not exists users (id integer primary key, name text not null)");
    await db.ExecuteAsync("insert into users (id, name) values (42, 'Ada') on conflict (id) do nothing");
    long id = 42;
    User? user = await db.QuerySingleOrDefaultAsync<User>($"select id, name from users where id = {id}");
    Console.WriteLine(user);

    // An anonymous-object argument, execute-many over a list of them, a record, a class and a tuple row.
    await db.ExecuteAsync("insert into users (id, name) values (@Id, @Name)", new { Id = 7L, Name = "Grace" });
    await db.ExecuteAsync("insert into users (id, name) values (@Id, @Name)",
        new[] { new { Id = 8L, Name = "Edsger" }, new { Id = 9L, Name = "Barbara" } });
    List<User> users = await db.QueryAsync<User>("select id, name from users where id < @max order by id", new { max = 40L });
    Console.WriteLine("record rows: " + string.Join(", ", users));
    List<Account> accounts = db.Query<Account>("select id, name as owner from users order by id desc");
    Console.WriteLine("class rows: " + string.Join(", ", accounts.Select(a => $"{a.Owner}#{a.Id}")));
    (long Id, string Name) first = await db.QueryFirstAsync<(long Id, string Name)>("select id, name from users order by name");
    Console.WriteLine($"tuple: {first.Id} {first.Name}");

    // Single-column rows, with a list argument expanded into one parameter per element.
    List<string> names =
        await db.QueryAsync<string>("select name from users where id in @ids order by name", new { ids = new[] { 7L, 8L } });
    long count = await db.QuerySingleAsync<long>("select count(*) from users");
    Console.WriteLine($"scalars: {string.Join(", ", names)}; {count} users");

    // A nullable struct row: the struct mapped by its members and wrapped; no row gives null.
    Point? corner = await db.QueryFirstOrDefaultAsync<Point?>("select 3 as x, 4 as y");
    Point? nowhere = db.QueryFirstOrDefault<Point?>("select 3 as x, 4 as y where 0");
    Console.WriteLine($"nullable struct: {corner}, none: {(nowhere is null ? "null" : "a row")}");

    // A row type given as a Type (a typeof in the call: the generator sees it).
    List<object?> byType = db.Query(typeof(User), "select id, name from users where id = 9");
    Console.WriteLine($"by type: {byType[0]}");

    // Multi-mapping: a post and its author from one row.
    await db.ExecuteAsync("create table posts (id integer primary key, user_id integer not null, title text not null)");
    await db.ExecuteAsync("insert into posts (id, user_id, title) values (1, 42, 'Notes'), (2, 7, 'Compilers')");
    List<Post> posts = await db.QueryAsync<Post, User, Post>(
        "select p.id, p.title, u.id, u.name from posts p join users u on u.id = p.user_id order by p.id",
        (post, author) => post with { Author = author });
    Console.WriteLine("multi-mapped: " + string.Join("; ", posts.Select(p => $"{p.Title} by {p.Author?.Name}")));

    // A grid: two result sets from one command.
    using (GridReader grid = await db.QueryMultipleAsync("select count(*) as n from users; select id, title from posts order by id"))
    {
        Count total = grid.ReadSingle<Count>();
        List<Post> titles = grid.Read<Post>();
        Console.WriteLine($"grid: {total.N} users; posts {string.Join(", ", titles.Select(p => p.Title))}");
    }

    // A session with a transaction: one committed insert, one rolled back.
    await using (Session session = db.OpenSession())
    {
        using (SessionTransaction tx = session.BeginTransaction())
        {
            await session.ExecuteAsync("insert into users (id, name) values (@Id, @Name)", new NewUser(10, "Tony"));
            tx.Commit();
        }
        using (SessionTransaction tx = session.BeginTransaction())
        {
            await session.ExecuteAsync("insert into users (id, name) values (@Id, @Name)", new NewUser(11, "Alan"));
            tx.Rollback();
        }
        List<(long, string)> kept = await session.QueryAsync<(long, string)>("select id, name from users where id between 10 and 11 order by id");
        Console.WriteLine("session: " + string.Join(", ", kept.Select(k => $"{k.Item1} {k.Item2}")));
    }

    // Churn on purpose: opens back to back, each right after the previous release; the detector names it.
    for (int i = 0; i < 12; i++)
        await db.QueryFirstAsync<User>("select id, name from users where id = @id", new { id });
    PoolReport report = db.GetPoolReport();
    Console.WriteLine($"report: detectors {report.Detectors}, {report.Commands} commands, {report.Opens} opens");
    Console.WriteLine($"churn named: {report.FindingCounts.GetValueOrDefault(FindingKind.Churn) > 0}");
}
File.Delete(file);

/// <summary>A user row, mapped through its constructor.</summary>
internal sealed record User(long Id, string Name);

/// <summary>An argument record: its properties are sent as @Id and @Name.</summary>
internal sealed record NewUser(long Id, string Name);

/// <summary>A post row with its author (multi-mapping).</summary>
internal sealed record Post(long Id, string Title)
{
    public User? Author { get; init; }
}

/// <summary>A class row with setters.</summary>
internal sealed class Account
{
    public long Id { get; set; }

    public string Owner { get; set; } = "";
}

/// <summary>A struct row, read as <c>Point?</c>.</summary>
internal readonly record struct Point(long X, long Y);

/// <summary>A one-column row.</summary>
internal sealed record Count(long N);
