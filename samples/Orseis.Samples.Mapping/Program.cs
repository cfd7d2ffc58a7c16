// Three things a Dapper user expects, on SQLite (and a MariaDB procedure when ORSEIS_MYSQL is set):
//   1. a join mapped onto two types (multi-mapping),
//   2. a type of your own read from and sent to a column (type handlers),
//   3. a stored procedure's OUT and INOUT parameters read back (ParameterBag).
// Run: dotnet run --project samples/Orseis.Samples.Mapping
using System.Data;
using System.Data.Common;
using System.Text.Json;
using Microsoft.Data.Sqlite;
using Orseis;

string file = Path.Combine(Path.GetTempPath(), $"orseis-mapping-{Guid.NewGuid():N}.db");

// Handlers belong to the database they are registered on: its mappers and binder use them, others do not.
var options = new OrseisOptions()
    .AddTypeHandler(new UserIdHandler())
    .AddTypeHandler(new JsonHandler<Settings>());
await using (var db = new Database(SqliteFactory.Instance, $"Data Source={file}", options))
{
    db.Execute("create table users (id text primary key, name text not null, settings text)");
    db.Execute("create table orders (id integer primary key, user_id text not null, total real not null)");

    // UserId and Settings go out through their handlers: a string and a JSON text.
    db.Execute("insert into users (id, name, settings) values (@id, @name, @settings)", new[]
    {
        new { id = new UserId("u-1"), name = "Ada", settings = new Settings("dark", true) },
        new { id = new UserId("u-2"), name = "Linus", settings = new Settings("light", false) },
    });
    db.Execute("insert into orders (id, user_id, total) values (10, 'u-1', 12.5), (11, 'u-1', 3), (12, 'u-2', 40)");

    // 1. Multi-mapping: each row split where the second "id" column starts (searched from the right).
    List<string> lines = db.Query<User, Order, string>(
        "select u.id, u.name, u.settings, o.id, o.total from users u join orders o on o.user_id = u.id order by o.id",
        (user, order) => $"{user.Name} ({user.Id.Value}, theme {user.Settings?.Theme}): order {order.Id} = {order.Total}");
    lines.ForEach(Console.WriteLine);

    // 2. Type handlers in a list parameter and a scalar.
    UserId[] ids = [new("u-2"), new("u-9")];
    Console.WriteLine("in @ids: " + string.Join(", ", db.Query<string>("select name from users where id in @ids", new { ids })));
    Console.WriteLine("scalar:  " + db.Scalar<Settings>("select settings from users where id = 'u-1'"));
}

File.Delete(file);

// 3. A stored procedure with IN, OUT and INOUT parameters (MariaDB; SQLite has no procedures).
if (Environment.GetEnvironmentVariable("ORSEIS_MYSQL") is { Length: > 0 } mysql)
{
    await using var maria = new Database(MySqlConnector.MySqlConnectorFactory.Instance, mysql);
    maria.Execute("drop procedure if exists add_points");
    maria.Execute("""
        create procedure add_points(in p_user varchar(10), in p_points int, inout p_total int, out p_message varchar(100))
        begin
          set p_total = p_total + p_points;
          set p_message = concat(p_user, ' now has ', p_total, ' points');
        end
        """);
    var call = new ParameterBag { CommandType = CommandType.StoredProcedure }
        .Add("p_user", "u-1")
        .Add("p_points", 5)
        .Add("p_total", 10, DbType.Int32, ParameterDirection.InputOutput)
        .Add("p_message", direction: ParameterDirection.Output, dbType: DbType.String, size: 100);
    await maria.ExecuteAsync("add_points", call);
    Console.WriteLine($"procedure: p_total = {call.Get<int>("p_total")}, p_message = {call.Get<string>("p_message")}");
    maria.Execute("drop procedure add_points");
}

/// <summary>A strongly typed id, stored as text.</summary>
internal readonly record struct UserId(string Value);

/// <summary>A user's settings, stored as JSON text.</summary>
internal sealed record Settings(string Theme, bool Beta);

internal sealed record User(UserId Id, string Name, Settings? Settings);

internal sealed record Order(long Id, double Total);

/// <summary>Reads a text column as a <see cref="UserId"/> and sends a <see cref="UserId"/> as text.</summary>
internal sealed class UserIdHandler : TypeHandler<UserId>
{
    public override UserId Parse(object value) => new((string)value);

    public override void SetValue(DbParameter parameter, UserId value)
    {
        parameter.DbType = DbType.String;
        parameter.Value = value.Value;
    }
}

/// <summary>Reads and writes any record as JSON text.</summary>
internal sealed class JsonHandler<T> : TypeHandler<T>
{
    public override T Parse(object value) => JsonSerializer.Deserialize<T>((string)value)!;

    public override void SetValue(DbParameter parameter, T value)
    {
        parameter.DbType = DbType.String;
        parameter.Value = JsonSerializer.Serialize(value);
    }
}
