using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>Value tuples as result types, mapped by position as Dapper maps them (its TupleTests, on SQLite).</summary>
public sealed class ValueTupleTests
{
    public static TheoryData<RunnerKind> Kinds => SeededDatabase.AllKinds;

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Columns_map_to_elements_by_position_whatever_their_names(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        (long id, string name) = db.Runner.QuerySingle<(long Id, string Name)>("select 42 as Item2, 'Fred' as Item1");
        Assert.Equal((42L, "Fred"), (id, name));

        List<(long, string, int?)> people = await db.Runner.QueryAsync<(long, string, int?)>("select id, name, age from people order by id");
        Assert.Equal((1L, "person 1", (int?)21), people[0]);
        Assert.Equal((5L, "person 5", (int?)null), people[4]);

        List<(long, string)> streamed = [];
        foreach ((long, string) row in db.Runner.Stream<(long, string)>("select id, name from people where id < 3 order by id"))
            streamed.Add(row);
        Assert.Equal([(1L, "person 1"), (2L, "person 2")], streamed);
    }

    [Fact]
    public void Columns_after_the_last_element_are_not_read()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        Assert.Equal((42L, "Fred"), db.Runner.QuerySingle<(long, string)>("select 42, 'Fred', 123"));
        Assert.Equal(ValueTuple.Create("42"), db.Runner.QuerySingle<ValueTuple<string>>("select '42'"));
        Assert.Equal([0xDE, 0xAD], db.Runner.QuerySingle<ValueTuple<byte[]>>("select x'DEAD'").Item1);
    }

    [Fact]
    public void Fewer_columns_than_elements_is_an_error_naming_both_counts()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        var error = Assert.Throws<MappingException>(() => db.Runner.QuerySingle<(long Id, string Name, int Extra)>("select 42 as id, 'Fred' as name"));
        Assert.Equal(
            "The value tuple (Int64, String, Int32) has 3 elements, but the result has only 2 column(s) (id, name). " +
            "A value tuple is mapped by position (column 1 to Item1, and so on); select one column per element.",
            error.Message);
        Assert.Equal("(Int64, String, Int32)", error.Member);
    }

    [Fact]
    public void Tuples_of_8_and_15_elements_nest_their_rest()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        var eight = db.Runner.QuerySingle<(int, int, int, int, int, int, int, int)>("select 1, 2, 3, 4, 5, 6, 7, 8");
        Assert.Equal((1, 2, 3, 4, 5, 6, 7, 8), eight);
        var fifteen = db.Runner.QuerySingle<(int, int, int, int, int, int, int, int, int, int, int, int, int, int, long)>(
            "select 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15");
        Assert.Equal((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15L), fifteen);
        var sixteen = Assert.Throws<MappingException>(() =>
            db.Runner.QuerySingle<(int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int)>(
                "select 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15"));
        Assert.Contains("has 16 elements, but the result has only 15 column(s)", sixteen.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_nullable_tuple_is_null_only_when_there_is_no_row()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        (long, string)? found = db.Runner.QuerySingleOrDefault<(long, string)?>("select 42, 'Fred', 123");
        Assert.Equal((42L, "Fred"), found);
        Assert.Null(db.Runner.QuerySingleOrDefault<(long, string)?>("select 42, 'Fred' where 1 = 2"));
        var eight = db.Runner.QuerySingle<(int, int, int, int, int, int, int, int)?>("select 1, 2, 3, 4, 5, 6, 7, 8");
        Assert.Equal((1, 2, 3, 4, 5, 6, 7, 8), eight);
        Assert.Null(db.Runner.QueryFirstOrDefault<(int, int, int, int, int, int, int, int)?>("select 1, 2, 3, 4, 5, 6, 7, 8 where 1 = 2"));
    }

    [Fact]
    public void A_NULL_into_an_element_that_cannot_hold_it_names_the_element()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        var error = Assert.Throws<MappingException>(() => db.Runner.Query<(long, int)>("select id, age from people order by id"));
        Assert.Equal(("age", "Item2"), (error.Column, error.Member));
        Assert.Contains("member 'Item2' (Int32) cannot hold NULL", error.Message, StringComparison.Ordinal);

        var wrongType = Assert.Throws<MappingException>(() => db.Runner.Query<(long, DateOnly)>("select id, name from people"));
        Assert.Equal(("name", "Item2"), (wrongType.Column, wrongType.Member));
    }

    [Fact]
    public void A_System_Tuple_maps_by_its_constructor_names_as_in_Dapper_not_by_position()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        Assert.Equal(Tuple.Create(7L, "x"), db.Runner.QuerySingle<Tuple<long, string>>("select 'x' as item2, 7 as item1"));
        var error = Assert.Throws<MappingException>(() => db.Runner.QuerySingle<Tuple<long, string>>("select 7 as id, 'x' as name"));
        Assert.Contains("no column for constructor parameter 'item1'", error.Message, StringComparison.Ordinal);
    }

    public sealed record Owner(long Id, string Name);

    [Fact]
    public void A_tuple_is_one_part_of_a_multi_mapped_row_and_a_grid_reads_tuples()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        List<string> rows = db.Runner.Query<Owner, (long, string), string>(
            "select id, name, id as id, upper(name) from people where id < 3 order by id", (o, t) => $"{o.Name}:{t.Item1}:{t.Item2}");
        Assert.Equal(["person 1:1:PERSON 1", "person 2:2:PERSON 2"], rows);

        using GridReader grid = db.Runner.QueryMultiple("select 1, 'a'; select 2, 'b', 3");
        Assert.Equal([(1L, "a")], grid.Read<(long, string)>());
        Assert.Equal([(2L, "b", 3L)], grid.Read<(long, string, long)>());
    }
}
