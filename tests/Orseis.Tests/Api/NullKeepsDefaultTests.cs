using Orseis.Mapping;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>
/// <see cref="OrseisOptions.NullKeepsDefault"/>: off, a NULL into a member that cannot hold it is an error; on, Dapper's
/// behaviour (the member keeps what the constructor gave it, a constructor parameter, element or scalar gets default).
/// </summary>
public sealed class NullKeepsDefaultTests
{
    public static TheoryData<RunnerKind> Kinds => SeededDatabase.AllKinds;

    public sealed class Row
    {
        public long Id { get; set; }

        public int Age { get; set; } = -1;

        public int? MaybeAge { get; set; } = -1;

        public DateTime When { get; set; } = new(2000, 1, 1, 0, 0, 0, DateTimeKind.Utc);

        public string Name { get; set; } = "initial";
    }

    public sealed record RowRecord(long Id, int Age);

    private const string Sql = "select id, age, age as maybeage, null as [when], null as name from people where id in (4, 5) order by id";

    [Fact]
    public void By_default_a_NULL_into_a_non_nullable_member_is_an_error()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        var error = Assert.Throws<MappingException>(() => db.Runner.Query<Row>(Sql));
        Assert.Equal(("when", "Row.When"), (error.Column, error.Member));
        Assert.Throws<MappingException>(() => db.Runner.Query<RowRecord>("select id, age from people"));
        Assert.Throws<MappingException>(() => db.Runner.Query<int>("select age from people"));
        Assert.Throws<MappingException>(() => db.Runner.Scalar<int>("select null"));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task When_on_the_member_keeps_what_the_constructor_gave_it(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind, o => o.NullKeepsDefault = true);
        List<Row> rows = await db.Runner.QueryAsync<Row>(Sql);
        Assert.Equal((4L, 24, (int?)24), (rows[0].Id, rows[0].Age, rows[0].MaybeAge));
        Assert.Equal((5L, -1, (int?)null), (rows[1].Id, rows[1].Age, rows[1].MaybeAge));
        Assert.Equal(new DateTime(2000, 1, 1, 0, 0, 0, DateTimeKind.Utc), rows[1].When);
        Assert.Null(rows[1].Name); // a member that can hold NULL reads it, as before
    }

    [Fact]
    public void When_on_constructor_parameters_elements_scalars_and_Scalar_get_default()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall, o => o.NullKeepsDefault = true);
        Assert.Equal(0, db.Runner.QuerySingle<RowRecord>("select id, age from people where id = 5").Age);
        Assert.Equal((5L, 0), db.Runner.QuerySingle<(long, int)>("select id, age from people where id = 5"));
        Assert.Equal([21, 22, 23, 24, 0], db.Runner.Query<int>("select age from people order by id"));
        Assert.Equal(0, db.Runner.Scalar<int>("select null"));
        Assert.Equal([0], db.Runner.Query<Row, int, int>("select 1 as id, 2 as x, null as age", (_, age) => age, splitOn: "age"));
    }

    [Fact]
    public void The_setting_keeps_its_own_mappers_and_wrong_values_still_fail()
    {
        using var strict = new SeededDatabase(RunnerKind.OpenPerCall);
        using var lenient = new SeededDatabase(RunnerKind.OpenPerCall, o => o.NullKeepsDefault = true);
        const string Query = "select id, age from people where id = 5";
        Assert.Equal(-1, lenient.Runner.QuerySingle<Row>(Query).Age);
        Assert.Throws<MappingException>(() => strict.Runner.QuerySingle<Row>(Query));
        Assert.Equal(-1, lenient.Runner.QuerySingle<Row>(Query).Age);

        var wrong = Assert.Throws<MappingException>(() => lenient.Runner.QuerySingle<Row>("select 1 as id, 'x' as age"));
        Assert.Equal(("age", "Row.Age"), (wrong.Column, wrong.Member));
    }

    [Fact]
    public void It_is_off_unless_set()
    {
        Assert.False(new OrseisOptions().NullKeepsDefault);
        Assert.Null(TypeHandlerSet.From(new Dictionary<Type, ITypeHandler>()));
        Assert.True(TypeHandlerSet.From(new Dictionary<Type, ITypeHandler>(), nullKeepsDefault: true)!.NullKeepsDefault);
    }
}
