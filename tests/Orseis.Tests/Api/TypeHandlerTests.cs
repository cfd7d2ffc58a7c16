using System.Data;
using System.Data.Common;
using System.Text.Json;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>Type handlers: a string column as a strongly typed id, a JSON text column as a record, in every call form.</summary>
public sealed class TypeHandlerTests
{
    public static TheoryData<RunnerKind> Kinds => SeededDatabase.AllKinds;

    public readonly record struct UserId(string Value);

    public sealed record Profile(string Theme, int Level);

    public sealed class Account
    {
        public UserId Id { get; set; }

        public UserId? Referrer { get; set; }

        public Profile? Profile { get; set; }
    }

    public sealed record AccountRecord(UserId Id, Profile Profile);

    public sealed class UserIdHandler : TypeHandler<UserId>
    {
        public override UserId Parse(object value) => new((string)value);

        public override void SetValue(DbParameter parameter, UserId value)
        {
            parameter.DbType = DbType.String;
            parameter.Value = value.Value;
        }
    }

    public sealed class JsonHandler<T> : TypeHandler<T>
    {
        public override T Parse(object value) => JsonSerializer.Deserialize<T>((string)value)!;

        public override void SetValue(DbParameter parameter, T value) => parameter.Value = JsonSerializer.Serialize(value);
    }

    /// <summary>Fails with the value in its own message, to show Orseis does not repeat it.</summary>
    public sealed class LeakyHandler : TypeHandler<UserId>
    {
        public override UserId Parse(object value) => throw new FormatException($"bad id {value}");

        public override void SetValue(DbParameter parameter, UserId value) => throw new FormatException($"bad id {value.Value}");
    }

    private static SeededDatabase Accounts(RunnerKind kind, Action<OrseisOptions>? configure = null)
    {
        var db = new SeededDatabase(kind, configure ?? (o => o.AddTypeHandler(new UserIdHandler()).AddTypeHandler(new JsonHandler<Profile>())));
        db.Runner.Execute("create table accounts (id text primary key, referrer text, profile text)");
        return db;
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Parameters_members_scalars_lists_and_holes_go_through_the_handlers(RunnerKind kind)
    {
        using SeededDatabase db = Accounts(kind);
        var rows = new[]
        {
            new { id = new UserId("u-1"), referrer = (UserId?)null, profile = new Profile("dark", 3) },
            new { id = new UserId("u-2"), referrer = (UserId?)new UserId("u-1"), profile = new Profile("light", 1) },
        };
        Assert.Equal(2, db.Runner.Execute("insert into accounts (id, referrer, profile) values (@id, @referrer, @profile)", rows));
        Assert.Equal("{\"Theme\":\"dark\",\"Level\":3}", db.Runner.Scalar<string>("select profile from accounts where id = 'u-1'"));

        List<Account> all = db.Runner.Query<Account>("select id, referrer, profile from accounts order by id");
        Assert.Equal([new UserId("u-1"), new UserId("u-2")], all.Select(a => a.Id));
        Assert.Equal([null, new UserId("u-1")], all.Select(a => a.Referrer));
        Assert.Equal(new Profile("light", 1), all[1].Profile);

        AccountRecord single = await db.Runner.QuerySingleAsync<AccountRecord>("select id, profile from accounts where id = @id", new { id = new UserId("u-2") });
        Assert.Equal(new AccountRecord(new UserId("u-2"), new Profile("light", 1)), single);

        UserId[] ids = [new("u-2"), new("u-9")];
        Assert.Equal([new UserId("u-2")], db.Runner.Query<UserId>("select id from accounts where id in @ids", new { ids }));
        Assert.Equal(new UserId("u-1"), db.Runner.Scalar<UserId>($"select referrer from accounts where id = {new UserId("u-2")}"));
        Assert.Equal(["u-1", "u-2"], db.Runner.Query<UserId>($"select id from accounts where id in {new[] { new UserId("u-1"), new UserId("u-2") }} order by id").Select(i => i.Value));
        Assert.Null(await db.Runner.ScalarAsync<UserId?>("select referrer from accounts where id = 'u-1'"));
        Assert.Equal(new Profile("dark", 3), db.Runner.QueryFirst<Profile>("select profile from accounts order by id"));

        var streamed = new List<UserId>();
        foreach (Account a in db.Runner.Stream<Account>("select id, profile from accounts order by id"))
            streamed.Add(a.Id);
        await foreach (UserId id in db.Runner.StreamAsync<UserId>("select id from accounts order by id"))
            streamed.Add(id);
        Assert.Equal(["u-1", "u-2", "u-1", "u-2"], streamed.Select(i => i.Value));

        using (GridReader grids = db.Runner.QueryMultiple("select id from accounts order by id; select id, profile from accounts where id = 'u-1'"))
        {
            Assert.Equal(new UserId("u-1"), grids.ReadFirst<UserId>());
            Assert.Equal(3, grids.ReadSingle<Account>().Profile!.Level);
        }

        List<string> pairs = db.Runner.Query<Account, Profile, string>(
            "select a.id, r.profile from accounts a join accounts r on r.id = a.referrer", (a, p) => $"{a.Id.Value}:{p.Theme}", splitOn: "profile");
        Assert.Equal(["u-2:dark"], pairs);
    }

    [Fact]
    public void Handlers_belong_to_their_database_so_the_same_type_reads_differently_in_two_databases()
    {
        using var file = new SqliteFile();
        using Database plain = file.Open();
        using Database upper = file.Open(configure: o => o.AddTypeHandler(new UpperHandler()));
        using Database json = file.Open(configure: o => o.AddTypeHandler(new JsonHandler<Profile>()));
        plain.Execute("create table t (profile text)");
        plain.Execute("insert into t (profile) values ('{\"Theme\":\"x\",\"Level\":2}')");

        // The same SQL and result type, compiled once per handler set: no database sees another's mapper.
        Assert.Equal(2, json.QuerySingle<Holder>("select profile from t").Profile!.Level);
        var none = Assert.Throws<MappingException>(() => plain.QuerySingle<Holder>("select profile from t"));
        Assert.Contains("Holder.Profile", none.Message, StringComparison.Ordinal);
        Assert.Equal("{\"THEME\":\"X\",\"LEVEL\":2}", upper.QuerySingle<Shout>("select profile from t").Profile.Text);
        Assert.Equal(2, json.QuerySingle<Holder>("select profile from t").Profile!.Level);
    }

    public sealed record Loud(string Text);

    public sealed record Shout(Loud Profile);

    public sealed class Holder
    {
        public Profile? Profile { get; set; }
    }

    private sealed class UpperHandler : TypeHandler<Loud>
    {
        public override Loud Parse(object value) => new(((string)value).ToUpperInvariant());

        public override void SetValue(DbParameter parameter, Loud value) => parameter.Value = value.Text;
    }

    [Fact]
    public void A_failing_handler_is_named_with_the_column_or_parameter_and_never_the_value()
    {
        using SeededDatabase db = Accounts(RunnerKind.OpenPerCall, o => o.AddTypeHandler(new LeakyHandler()));
        db.Runner.Execute("insert into accounts (id) values ('secret-7')");

        var read = Assert.Throws<MappingException>(() => db.Runner.Query<Account>("select id from accounts"));
        Assert.Equal("id", read.Column);
        Assert.Equal(
            "Type handler LeakyHandler failed to read column 'id' (database type TEXT, read as String) into member 'Account.Id' (UserId): " +
            "it threw FormatException (the inner exception).", read.Message);
        Assert.Contains("Account.Id", read.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("secret", read.Message, StringComparison.Ordinal);
        Assert.IsType<FormatException>(read.InnerException);

        var scalar = Assert.Throws<MappingException>(() => db.Runner.Scalar<UserId>("select id from accounts"));
        Assert.Contains("LeakyHandler", scalar.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("secret", scalar.Message, StringComparison.Ordinal);

        var write = Assert.Throws<ArgumentException>(() => db.Runner.Execute("insert into accounts (id) values (@id)", new { id = new UserId("secret-8") }));
        Assert.Equal("args", write.ParamName);
        Assert.Contains("LeakyHandler", write.Message, StringComparison.Ordinal);
        Assert.Contains("'@id'", write.Message, StringComparison.Ordinal);
        Assert.Contains("(a UserId): it threw FormatException (the inner exception).", write.Message, StringComparison.Ordinal);
        Assert.IsType<FormatException>(write.InnerException);
        Assert.DoesNotContain("secret", write.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_null_column_for_a_handled_type_that_cannot_hold_null_is_the_usual_error()
    {
        using SeededDatabase db = Accounts(RunnerKind.Session);
        db.Runner.Execute("insert into accounts (id) values ('u-1')");
        var error = Assert.Throws<MappingException>(() => db.Runner.Scalar<UserId>("select referrer from accounts"));
        Assert.Contains("is NULL", error.Message, StringComparison.Ordinal);
        Assert.Null(db.Runner.QuerySingle<Account>("select id, referrer, profile from accounts").Referrer);
    }

    [Fact]
    public void The_handler_of_T_reads_T_nullable_in_single_columns_tuple_elements_and_with_NullKeepsDefault()
    {
        using SeededDatabase db = Accounts(RunnerKind.OpenPerCall);
        db.Runner.Execute("insert into accounts (id, referrer) values ('u-1', null), ('u-2', 'u-1')");
        Assert.Equal([null, new UserId("u-1")], db.Runner.Query<UserId?>("select referrer from accounts order by id"));
        Assert.Equal(
            [(new UserId("u-1"), (UserId?)null), (new UserId("u-2"), new UserId("u-1"))],
            db.Runner.Query<(UserId, UserId?)>("select id, referrer from accounts order by id"));
        Assert.Throws<MappingException>(() => db.Runner.Query<(UserId, UserId)>("select id, referrer from accounts"));

        using SeededDatabase lenient = Accounts(RunnerKind.OpenPerCall, o => o.AddTypeHandler(new UserIdHandler()).NullKeepsDefault = true);
        lenient.Runner.Execute("insert into accounts (id, referrer) values ('u-1', null)");
        Assert.Equal((new UserId("u-1"), default(UserId)), lenient.Runner.QuerySingle<(UserId, UserId)>("select id, referrer from accounts"));
    }

    [Fact]
    public void Registration_refuses_a_nullable_type_and_a_second_handler_for_a_type()
    {
        var options = new OrseisOptions().AddTypeHandler(new UserIdHandler());
        var twice = Assert.Throws<ArgumentException>(() => options.AddTypeHandler(new LeakyHandler()));
        Assert.Contains("UserId already has a type handler (UserIdHandler)", twice.Message, StringComparison.Ordinal);
        var nullable = Assert.Throws<ArgumentException>(() => options.AddTypeHandler(new NullableHandler()));
        Assert.Contains("not Nullable<UserId>", nullable.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentNullException>(() => options.AddTypeHandler<UserId>(null!));
    }

    private sealed class NullableHandler : TypeHandler<UserId?>
    {
        public override UserId? Parse(object value) => null;

        public override void SetValue(DbParameter parameter, UserId? value) => parameter.Value = DBNull.Value;
    }
}
