// The cold-start probe (Dapper): the same statements as Orseis.ColdStart.OrseisProbe, through Dapper on a SQLite
// connection Dapper opens and closes per call (as Orseis' OpenPerCall). Built with -p:UseDapperAot=true, Dapper.AOT
// generates the mappers and binders at build time.
using Dapper;
using Microsoft.Data.Sqlite;

#if DAPPER_AOT
[module: DapperAot]
[module: BindTupleByName(false)]
#endif

string file = args.Length > 0 ? args[0] : "coldstart.db";
Checkpoint.Mark("main");
using var connection = new SqliteConnection($"Data Source={file}");
Checkpoint.Mark("database");
await connection.ExecuteAsync("create table if not exists users (id integer primary key, name text not null)");
Checkpoint.Mark("first execute");
await connection.ExecuteAsync("insert into users (id, name) values (42, 'Ada') on conflict (id) do nothing");
long id = 42;
User? user = await connection.QuerySingleOrDefaultAsync<User>("select id, name from users where id = @id", new { id });
Console.WriteLine(user);
Checkpoint.Mark("first answer (README example)");
await connection.ExecuteAsync("insert into users (id, name) values (@Id, @Name) on conflict (id) do nothing", new { Id = 7L, Name = "Grace" });
List<(long Id, string Name)> pairs = (await connection.QueryAsync<(long Id, string Name)>("select id, name from users order by id")).AsList();
Console.WriteLine(string.Join(", ", pairs.Select(p => $"{p.Id} {p.Name}")));
Checkpoint.Mark("tuples");
List<User> users = (await connection.QueryAsync<User>("select id, name from users where id < @max order by id", new { max = 100L })).AsList();
Console.WriteLine($"done {users.Count} users");
Checkpoint.Mark("records (done)");

internal sealed record User(long Id, string Name);
