using Orseis.Mapping;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>Rows split into several types (a join), in every mode, sync and async, with the split rules and errors.</summary>
public sealed class MultiMappingTests
{
    public static TheoryData<RunnerKind> Kinds => SeededDatabase.AllKinds;

    public sealed class Pet
    {
        public long Id { get; set; }

        public string Name { get; set; } = "";
    }

    public sealed record Toy(long Id, string Label);

    public sealed record Vet(long Id, string Clinic);

    private const string PeopleAndPets =
        "select p.id, p.name, p.age, pet.id, pet.name from people p left join pets pet on pet.owner_id = p.id order by p.id, pet.id";

    private static SeededDatabase WithPets(RunnerKind kind)
    {
        var db = new SeededDatabase(kind);
        db.Runner.Execute("create table pets (id integer primary key, owner_id integer not null, name text not null, vet_id integer)");
        db.Runner.Execute("create table toys (id integer primary key, pet_id integer not null, label text not null)");
        db.Runner.Execute("create table vets (id integer primary key, clinic text not null)");
        db.Runner.Execute("insert into vets (id, clinic) values (7, 'North')");
        db.Runner.Execute("insert into pets (id, owner_id, name, vet_id) values (10, 1, 'Rex', 7), (11, 1, 'Tom', null), (12, 3, 'Kit', 7)");
        db.Runner.Execute("insert into toys (id, pet_id, label) values (100, 10, 'ball'), (101, 12, 'mouse')");
        return db;
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Two_types_split_on_id_and_a_part_whose_split_column_is_null_is_null(RunnerKind kind)
    {
        using SeededDatabase db = WithPets(kind);
        List<string> sync = db.Runner.Query<Person, Pet, string>(PeopleAndPets, (person, pet) => $"{person.Id}:{person.Name}:{pet?.Name ?? "none"}");
        List<string> async = await db.Runner.QueryAsync<Person, Pet?, string>(PeopleAndPets, (person, pet) => $"{person.Id}:{person.Name}:{pet?.Name ?? "none"}");
        string[] expected = ["1:person 1:Rex", "1:person 1:Tom", "2:person 2:none", "3:person 3:Kit", "4:person 4:none", "5:person 5:none"];
        Assert.Equal(expected, sync);
        Assert.Equal(expected, async);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Three_and_four_types_split_at_each_id_from_the_right(RunnerKind kind)
    {
        using SeededDatabase db = WithPets(kind);
        const string Three = "select p.id, p.name, p.age, pet.id, pet.name, t.id, t.label from people p join pets pet on pet.owner_id = p.id " +
                             "left join toys t on t.pet_id = pet.id order by pet.id";
        List<string> three = db.Runner.Query<PersonRecord, Pet, Toy?, string>(Three, (p, pet, toy) => $"{p.Name}/{pet.Name}/{toy?.Label}");
        Assert.Equal(["person 1/Rex/ball", "person 1/Tom/", "person 3/Kit/mouse"], three);

        const string Four = "select p.id, p.name, p.age, pet.id, pet.name, t.id, t.label, v.id, v.clinic from people p join pets pet on pet.owner_id = p.id " +
                            "left join toys t on t.pet_id = pet.id left join vets v on v.id = pet.vet_id order by pet.id";
        List<string> four = await db.Runner.QueryAsync<PersonRecord, Pet, Toy?, Vet?, string>(Four, (p, pet, toy, vet) => $"{p.Id}/{pet.Id}/{toy?.Id}/{vet?.Clinic}");
        Assert.Equal(["1/10/100/North", "1/11//", "3/12/101/North"], four);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void Several_split_names_give_one_split_per_type_after_the_first_and_a_scalar_part_reads_one_column(RunnerKind kind)
    {
        using SeededDatabase db = WithPets(kind);
        const string Sql = "select p.id, p.name, pet.id as pet_id, pet.name, (select count(*) from toys t where t.pet_id = pet.id) as toys " +
                           "from people p join pets pet on pet.owner_id = p.id order by pet.id";
        List<(string, long, long)> rows = db.Runner.Query<Person, Pet, long, (string, long, long)>(
            Sql, (p, pet, toys) => (p.Name, pet.Id, toys), splitOn: "pet_id, toys");

        // Pet has no member named pet_id: its Id is not mapped, and the part still maps by its other column.
        Assert.Equal([("person 1", 0L, 1L), ("person 1", 0L, 0L), ("person 3", 0L, 1L)], rows);
    }

    [Fact]
    public void The_interpolated_form_sends_its_holes_as_parameters_and_the_grid_reader_maps_a_result_set_the_same_way()
    {
        using SeededDatabase db = WithPets(RunnerKind.Session);
        long owner = 1;
        List<string> pets = db.Runner.Query<Person, Pet, string>(
            $"select p.id, p.name, pet.id, pet.name from people p join pets pet on pet.owner_id = p.id where p.id = {owner} order by pet.id",
            (p, pet) => p.Name + "/" + pet.Name);
        Assert.Equal(["person 1/Rex", "person 1/Tom"], pets);

        using GridReader grids = db.Runner.QueryMultiple(
            "select count(*) from pets; select p.id, p.name, pet.id, pet.name from people p join pets pet on pet.owner_id = p.id order by pet.id; select 1");
        Assert.Equal(3, grids.ReadSingle<int>());
        Assert.Equal(["Rex", "Tom", "Kit"], grids.Read<Person, Pet, string>((_, pet) => pet.Name));
        Assert.Equal([1], grids.ReadAsync<int>().GetAwaiter().GetResult());
    }

    [Fact]
    public async Task The_grid_reader_has_async_forms_for_three_and_four_types()
    {
        using SeededDatabase db = WithPets(RunnerKind.OpenPerCall);
        await using GridReader grids = await db.Runner.QueryMultipleAsync(
            "select 1 as id, 2 as id, 3 as id; select 1 as id, 2 as id, 3 as id, 4 as id");
        Assert.Equal([6L], await grids.ReadAsync<long, long, long, long>((a, b, c) => a + b + c));
        Assert.Equal([10L], await grids.ReadAsync<long, long, long, long, long>((a, b, c, d) => a + b + c + d));
    }

    [Fact]
    public void A_missing_split_column_is_named_with_the_columns_searched()
    {
        using SeededDatabase db = WithPets(RunnerKind.OpenPerCall);
        var error = Assert.Throws<MappingException>(() =>
            db.Runner.Query<Person, Pet, string>("select p.id, p.name, pet.name as pet_name from people p join pets pet on pet.owner_id = p.id", (p, pet) => "", splitOn: "pet_id"));
        Assert.Equal("pet_id", error.Column);
        Assert.StartsWith(
            "splitOn column 'pet_id' where Pet starts was not found: searching from the right, in columns 2 to 3 of (id, name, pet_name), ",
            error.Message, StringComparison.Ordinal);

        // The first column is never a split: with one "id" at the start, a second type has nowhere to start.
        var onlyFirst = Assert.Throws<MappingException>(() => db.Runner.Query<Person, Pet, string>("select id, name from people", (p, pet) => ""));
        Assert.Contains("'Id' where Pet starts", onlyFirst.Message, StringComparison.Ordinal);
        Assert.Equal(5, db.Runner.Scalar<int>("select count(*) from people")); // the connection was given back
    }

    [Fact]
    public void A_split_list_of_the_wrong_length_or_an_empty_one_names_splitOn()
    {
        using SeededDatabase db = WithPets(RunnerKind.OpenPerCall);
        var tooFew = Assert.Throws<ArgumentException>(() =>
            db.Runner.Query<long, long, long, long, string>("select 1 as a, 2 as b, 3 as c, 4 as d", (a, b, c, d) => "", splitOn: "b,c"));
        Assert.Equal("splitOn", tooFew.ParamName);
        Assert.Contains("2 columns (b, c) for 4 types", tooFew.Message, StringComparison.Ordinal);
        var empty = Assert.Throws<ArgumentException>(() => db.Runner.Query<Person, Pet, string>("select 1 as id, 2 as id", (p, pet) => "", splitOn: " , "));
        Assert.Equal("splitOn", empty.ParamName);
        Assert.Throws<ArgumentNullException>(() => db.Runner.Query<Person, Pet, string>("select 1", null!));
    }

    [Fact]
    public void Splits_are_found_from_the_right_leaving_a_column_for_each_earlier_type()
    {
        Type[] three = [typeof(int), typeof(int), typeof(int)];
        Assert.Equal([0, 2, 4], MultiMapper.Splits(three, ["id", "a", "id", "b", "ID", "c"], "Id"));
        Assert.Equal([0, 2, 3], MultiMapper.Splits(three, ["id", "id", "id", "id"], "id"));
        Assert.Equal([0, 1, 3], MultiMapper.Splits(three, ["x", "b", "y", "c"], "b, c"));
        Assert.Throws<MappingException>(() => MultiMapper.Splits(three, ["x", "c", "b"], "b, c"));
    }

    [Fact]
    public void The_mappers_are_compiled_once_per_layout()
    {
        using SeededDatabase db = WithPets(RunnerKind.ReuseConnection);
        db.Runner.Query<Person, Pet, int>(PeopleAndPets, (_, _) => 0);
        int cached = MultiMapper.CachedLayouts;
        db.Runner.Query<Person, Pet, int>(PeopleAndPets, (_, _) => 1);
        Assert.Equal(cached, MultiMapper.CachedLayouts);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task A_cancelled_token_cancels_the_call(RunnerKind kind)
    {
        using SeededDatabase db = WithPets(kind);
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => db.Runner.QueryAsync<Person, Pet, int>(PeopleAndPets, (_, _) => 0, cancellationToken: cancelled.Token));
        Assert.Equal(6, (await db.Runner.QueryAsync<Person, Pet, int>(PeopleAndPets, (_, _) => 0)).Count);
    }
}
