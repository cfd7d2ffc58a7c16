// The cold-start probe (Orseis): the README example, then an anonymous-object argument, tuple rows and record rows, on a
// SQLite file named by the first argument. It prints one line per answer; benchmarks/Orseis.ColdStart times, from the
// process start, the first answer ("User { ... }") and the last ("done ..."). Orseis.ColdStart.DapperProbe runs the
// same statements through Dapper.
using Microsoft.Data.Sqlite;
using Orseis;

string file = args.Length > 0 ? args[0] : "coldstart.db";
Checkpoint.Mark("main");
await using var db = new Database(SqliteFactory.Instance, $"Data Source={file}", new OrseisOptions { Mode = ExecutionMode.OpenPerCall });
Checkpoint.Mark("database");
await db.ExecuteAsync("create table if not exists users (id integer primary key, name text not null)");
Checkpoint.Mark("first execute");
await db.ExecuteAsync("insert into users (id, name) values (42, 'Ada') on conflict (id) do nothing");
long id = 42;
User? user = await db.QuerySingleOrDefaultAsync<User>($"select id, name from users where id = {id}");
Console.WriteLine(user);
Checkpoint.Mark("first answer (README example)");
await db.ExecuteAsync("insert into users (id, name) values (@Id, @Name) on conflict (id) do nothing", new { Id = 7L, Name = "Grace" });
List<(long Id, string Name)> pairs = await db.QueryAsync<(long Id, string Name)>("select id, name from users order by id");
Console.WriteLine(string.Join(", ", pairs.Select(p => $"{p.Id} {p.Name}")));
Checkpoint.Mark("tuples");
List<User> users = await db.QueryAsync<User>("select id, name from users where id < @max order by id", new { max = 100L });
Console.WriteLine($"done {users.Count} users");
Checkpoint.Mark("records (done)");

internal sealed record User(long Id, string Name);
