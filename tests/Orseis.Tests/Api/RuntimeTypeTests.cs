using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>Rows of a type known at run time (<c>Query(Type, …)</c>, <c>GridReader.Read(Type)</c>) and multi-mapping by <c>Type[]</c>.</summary>
public sealed class RuntimeTypeTests
{
    public static TheoryData<RunnerKind> Kinds => SeededDatabase.AllKinds;

    public readonly record struct Point(long Id, int? Age);

    public interface INamed
    {
        string Name { get; }
    }

    public sealed class Pet
    {
        public long Id { get; set; }

        public string Name { get; set; } = "";
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Query_by_type_maps_as_the_generic_form_does_in_every_call_form(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        SqlRunner r = db.Runner;
        const string Two = "select id, name, age from people where id in (4, 5) order by id";
        const string One = "select id, name, age from people where id = 2";
        const string None = "select id, name, age from people where id = 99";

        List<object?> people = r.Query(typeof(Person), Two);
        Assert.Equal(["person 4", "person 5"], people.Cast<Person>().Select(p => p.Name));
        Assert.Equal([new Point(4, 24), new Point(5, null)], await r.QueryAsync(typeof(Point), Two)); // a struct, boxed
        Assert.Equal([4L, 5L], r.Query(typeof(long), Two));
        Assert.Equal("person 2", ((PersonRecord)r.QuerySingle(typeof(PersonRecord), One)!).Name);
        Assert.Equal("person 2", ((Person)(await r.QuerySingleAsync(typeof(Person), One))!).Name);
        Assert.Equal(new Point(2, 22), r.QueryFirst(typeof(Point), One));
        Assert.Equal(new Point(2, 22), await r.QueryFirstAsync(typeof(Point), One));
        Assert.Null(r.QueryFirstOrDefault(typeof(Point), None)); // no row: null, also for a struct
        Assert.Null(await r.QueryFirstOrDefaultAsync(typeof(Person), None));
        Assert.Null(r.QuerySingleOrDefault(typeof(long), None));
        Assert.Equal(2L, await r.QuerySingleOrDefaultAsync(typeof(long), One));
        Assert.Equal("person 2", ((dynamic)r.QuerySingle(typeof(object), One)!).name); // object: a DynamicRow

        var many = Assert.Throws<InvalidOperationException>(() => r.QuerySingle(typeof(Person), Two));
        Assert.Equal("QuerySingle expected at most one row, but the query returned more than one.", many.Message);
        await Assert.ThrowsAsync<InvalidOperationException>(() => r.QueryFirstAsync(typeof(Person), None));

        long id = 3;
        Assert.Equal("person 3", ((Person)r.QuerySingle(typeof(Person), $"select id, name from people where id = {id}")!).Name);
        Assert.Single(await r.QueryAsync(typeof(Person), $"select id, name from people where id = {id}"));

        await using GridReader grid = await r.QueryMultipleAsync(Two + "; " + One);
        Assert.Equal([4L, 5L], grid.Read(typeof(Person)).Cast<Person>().Select(p => p.Id));
        Assert.Equal([new Point(2, 22)], await grid.ReadAsync(typeof(Point)));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task A_grid_reads_one_row_of_a_run_time_type_by_each_limit_as_the_calls_do(RunnerKind kind)
    {
        // GridReader.ReadFirst(Type) and the other limits: the shape added by one table row (tools/Orseis.SurfaceGen).
        using var db = new SeededDatabase(kind);
        const string Two = "select id, name, age from people where id in (4, 5) order by id";
        const string One = "select id, name, age from people where id = 2";
        const string None = "select id, name, age from people where id = 99";
        string sql = string.Join("; ", One, Two, None, One, One, Two, None, Two, One, None);
        await using GridReader grid = await db.Runner.QueryMultipleAsync(sql);

        Assert.Equal("person 2", ((Person)grid.ReadSingle(typeof(Person))!).Name);
        Assert.Equal(new Point(4, 24), grid.ReadFirst(typeof(Point))); // a struct, boxed; later rows skipped
        Assert.Null(grid.ReadFirstOrDefault(typeof(Point)));
        Assert.Equal(2L, await grid.ReadSingleOrDefaultAsync(typeof(long)));
        Assert.Equal("person 2", ((dynamic)(await grid.ReadFirstAsync(typeof(object)))!).name); // object: a DynamicRow
        var many = await Assert.ThrowsAsync<InvalidOperationException>(() => grid.ReadSingleAsync(typeof(Person)));
        Assert.Equal("ReadSingle expected at most one row, but the result set has more than one.", many.Message);
        var none = Assert.Throws<InvalidOperationException>(() => grid.ReadSingle(typeof(Person)));
        Assert.Equal("ReadSingle expected a row, but the result set has none.", none.Message);
        Assert.Throws<InvalidOperationException>(() => grid.ReadSingleOrDefault(typeof(Person))); // two rows
        Assert.Equal(new Point(2, 22), await grid.ReadFirstOrDefaultAsync(typeof(Point)));
        Assert.Null(grid.ReadSingleOrDefault(typeof(Person)));
        Assert.True(grid.IsConsumed);
    }

    [Fact]
    public void A_type_no_row_can_be_is_refused_before_anything_runs_and_a_type_that_does_not_map_is_named()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        var open = Assert.Throws<ArgumentException>(() => db.Runner.Query(typeof(List<>), "select 1"));
        Assert.Equal("type", open.ParamName);
        Assert.StartsWith("Rows cannot be mapped to System.Collections.Generic.List`1[T]: it is an open generic type.", open.Message, StringComparison.Ordinal);
        var stat = Assert.Throws<ArgumentException>(() => db.Runner.Query(typeof(Math), "drop table people"));
        Assert.Contains("it is a static class", stat.Message, StringComparison.Ordinal);
        Assert.Equal(5, db.Runner.Scalar<int>("select count(*) from people")); // nothing ran
        Assert.Throws<ArgumentNullException>(() => db.Runner.Query(null!, "select 1"));

        var unmappable = Assert.Throws<MappingException>(() => db.Runner.Query(typeof(INamed), "select name from people"));
        Assert.Equal("INamed", unmappable.Member);
        using GridReader grid = db.Runner.QueryMultiple("select 1");
        Assert.Throws<ArgumentException>(() => grid.Read(typeof(void)));
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Multi_mapping_by_a_type_array_splits_like_the_generic_forms_for_any_number_of_types(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        db.Runner.Execute("create table pets (id integer primary key, owner_id integer not null, name text not null)");
        db.Runner.Execute("insert into pets (id, owner_id, name) values (10, 1, 'Rex'), (11, 3, 'Kit')");
        const string Sql = "select p.id, p.name, pet.id, pet.name from people p left join pets pet on pet.owner_id = p.id where p.id <= 3 order by p.id";
        List<string> pairs = db.Runner.Query(Sql, [typeof(Person), typeof(Pet)], parts => $"{((Person)parts[0]!).Name}/{(parts[1] as Pet)?.Name}");
        Assert.Equal(["person 1/Rex", "person 2/", "person 3/Kit"], pairs);

        // Six parts: scalars (boxed), a struct, a class and a dynamic row, each split at its own column.
        const string Six = "select 1 as a, 2 as b, 3 as id, 4 as age, 'x' as name, 5 as c, 6 as d, 'e' as e";
        Type[] six = [typeof(long), typeof(int), typeof(Point), typeof(Pet), typeof(long), typeof(object)];
        List<string> wide = await db.Runner.QueryAsync(Six, six, p => string.Join(",", p[0], p[1], p[2], ((Pet)p[3]!).Name, p[4], ((DynamicRow)p[5]!)["e"]),
            splitOn: "b,id,name,c,d");
        Assert.Equal(["1,2,Point { Id = 3, Age = 4 },x,5,e"], wide);

        long owner = 3;
        Assert.Equal(["Kit"], db.Runner.Query($"select p.id, pet.id, pet.name from people p join pets pet on pet.owner_id = p.id where p.id = {owner}",
            [typeof(long), typeof(Pet)], parts => ((Pet)parts[1]!).Name));
        using GridReader grid = db.Runner.QueryMultiple(Sql + "; " + Sql);
        Assert.Equal(3, grid.Read([typeof(Person), typeof(Pet)], parts => parts).Count);
        Assert.Equal(3, (await grid.ReadAsync([typeof(Person), typeof(object)], parts => parts)).Count);
    }

    [Fact]
    public void A_bad_type_array_names_what_is_wrong()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        Assert.Equal("types", Assert.Throws<ArgumentException>(() => db.Runner.Query("select 1", [], p => p)).ParamName);
        var nullType = Assert.Throws<ArgumentException>(() => db.Runner.Query("select 1", [typeof(int), null!], p => p));
        Assert.StartsWith("types[1] is null", nullType.Message, StringComparison.Ordinal);
        var open = Assert.Throws<ArgumentException>(() => db.Runner.Query("select 1", [typeof(int), typeof(List<>)], p => p));
        Assert.Contains("List`1", open.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentNullException>(() => db.Runner.Query("select 1", null!, p => p));
        Assert.Throws<ArgumentNullException>(() => db.Runner.Query<object>("select 1", [typeof(int)], null!));
    }
}
