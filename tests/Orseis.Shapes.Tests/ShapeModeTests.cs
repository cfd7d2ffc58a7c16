using Orseis.Mapping;
using Orseis.Shapes;
using Orseis.Tests.Api;
using Orseis.Tests.Infrastructure;
using Orseis.Tests.Mapping;
using Orseis.Tests.Parameters;

namespace Orseis.Tests.Shapes;

/// <summary>
/// This project is the mapping suite's second mode: these tests prove its row and argument types really are mapped over
/// generated shapes (the linked tests would pass over compiled mappers too, so without these the two modes could be one).
/// </summary>
public sealed class ShapeModeTests
{
    public sealed record Book(long Id, string Title, int? Pages);

    public sealed class Shelf
    {
        public long Id { get; set; }

        public string Label { get; init; } = "";

        public int Count { get; }
    }

    [Fact]
    public void The_generator_registered_the_suites_row_types_records_and_tuples()
    {
        Assert.NotNull(ShapeRegistry.Row<MappingTests.AllTypes>());
        Assert.NotNull(ShapeRegistry.Row<PersonRecord>());
        Assert.NotNull(ShapeRegistry.Row<Book>());
        Assert.NotNull(ShapeRegistry.Row<(long, string)>());
        Assert.True(ShapeRegistry.RowCount >= 50, $"only {ShapeRegistry.RowCount} row shapes");
    }

    [Fact]
    public void A_record_is_mapped_over_its_shape_through_its_constructor()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        int before = ShapeMappers.Built;

        List<Book> books = db.Runner.Query<Book>("select id, name as title, age as pages from people order by id").ToList();

        Assert.True(ShapeMappers.Built > before);
        Assert.Equal(new Book(1, "person 1", 21), books[0]);
        Assert.Null(books[4].Pages);
    }

    [Fact]
    public void Init_and_get_only_members_are_set_through_generated_accessors()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);

        Shelf shelf = db.Runner.QuerySingle<Shelf>("select id, name as label, age as count from people where id = 2");

        Assert.Equal((2L, "person 2", 22), (shelf.Id, shelf.Label, shelf.Count));
    }

    [Fact]
    public void An_anonymous_argument_and_a_tuple_row_go_through_shapes()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);

        (long Id, string Name) row = db.Runner.QuerySingle<(long Id, string Name)>(
            "select id, name from people where name = @name and id > @min", new { name = "person 3", min = 0L });

        // Another test may already have built this tuple's mapper for the same layout, so its shape is what is checked.
        Assert.NotNull(ShapeRegistry.Row<(long, string)>());
        Assert.Equal((3L, "person 3"), row);
        Assert.Equal(["name", "min"], ArgumentNames(new { name = "x", min = 1L }));
    }

    [Fact]
    public void Single_column_rows_are_read_over_generated_scalar_shapes_by_the_same_column_rules()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        int before = ShapeMappers.Built;

        // Row types no other test of this process reads (the linked mapping tests read int?: a scalar mapper is cached
        // by row type and column type, not the column's name), so both mappers are built here.
        List<uint?> ages = db.Runner.Query<uint?>("select age from people order by id").ToList();
        sbyte fourth = db.Runner.QuerySingle<sbyte>("select age from people where id = 4");

        Assert.NotNull(ShapeRegistry.Scalar<uint?>(compiledAllowed: true));
        Assert.NotNull(ShapeRegistry.Scalar<sbyte>(compiledAllowed: true));
        Assert.True(ShapeMappers.Built >= before + 2, $"{ShapeMappers.Built - before} scalar mappers built over shapes");
        Assert.Equal([21u, 22u, 23u, 24u, null], ages.Take(5));
        Assert.Equal((sbyte)24, fourth);
    }

    [Fact]
    public void A_row_type_named_by_typeof_in_a_call_has_its_run_time_row_type_generated()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);

        List<object?> books = db.Runner.Query(typeof(Book), "select id, name as title, age as pages from people where id = 1");

        Assert.NotNull(ShapeRegistry.RuntimeRow(typeof(Book)));
        Assert.Equal(new Book(1, "person 1", 21), books[0]);
    }

    /// <summary>A struct row read as <c>Spot?</c>: every member can hold NULL, so a row of NULL columns maps.</summary>
    public struct Spot
    {
        public long? X { get; set; }

        public string? Label { get; set; }
    }

    [Fact]
    public async Task A_nullable_struct_row_is_the_struct_mapped_over_its_shape_wrapped_and_no_row_is_null()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        int before = ShapeMappers.Built;

        List<Spot?> spots = db.Runner.Query<Spot?>("select age as x, name as label from people order by id");
        Spot? nulls = db.Runner.QuerySingle<Spot?>("select null as x, null as label");
        Spot? none = db.Runner.QueryFirstOrDefault<Spot?>("select age as x, name as label from people where id > 99");
        Spot? noSingle = await db.Runner.QuerySingleOrDefaultAsync<Spot?>("select age as x, name as label from people where id > 99");

        Assert.NotNull(ShapeRegistry.Row<Spot>());
        Assert.True(ShapeMappers.Built > before, "no mapper was built over a shape");
        Assert.Equal([(21L, "person 1"), (22L, "person 2"), (23L, "person 3"), (24L, "person 4"), (null, "person 5")],
            spots.Select(s => (s!.Value.X, s.Value.Label)));
        Assert.True(nulls.HasValue, "a row of NULL columns is a row, as compiled: the struct with its members unset");
        Assert.Equal((null, null), (nulls.Value.X, nulls.Value.Label));
        Assert.Null(none);
        Assert.Null(noSingle);
        var error = Assert.Throws<MappingException>(() => db.Runner.QuerySingle<Spot?>("select 'text' as x, 'a' as label"));
        Assert.Equal(("x", "Spot.X"), (error.Column, error.Member));
    }

    [Fact]
    public void A_nullable_struct_part_of_a_multi_mapped_row_is_null_when_its_split_column_is()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);

        List<(long, Spot?)> rows = db.Runner.Query<long, Spot?, (long, Spot?)>(
            "select p.id, q.age as x, q.name as label from people p left join people q on q.id = p.id and p.id < 3 order by p.id",
            (id, spot) => (id, spot), splitOn: "x");

        Assert.Equal([(1L, true), (2L, true), (3L, false), (4L, false), (5L, false)], rows.Select(r => (r.Item1, r.Item2.HasValue)));
        Assert.Equal((21L, "person 1"), (rows[0].Item2!.Value.X, rows[0].Item2!.Value.Label));
    }

    [Fact]
    public void A_registered_type_handlers_type_has_its_one_column_reads_generated()
    {
        // TypeHandlerTests (linked) registers handlers of UserId (a struct) and, through JsonHandler<Profile>, of Profile: what
        // a part of a multi-mapped row or a nullable read of them looks up under Native AOT, where nothing is compiled.
        Assert.NotNull(ShapeRegistry.Scalar<TypeHandlerTests.UserId>(compiledAllowed: true));
        Assert.NotNull(ShapeRegistry.Scalar<TypeHandlerTests.UserId?>(compiledAllowed: true));
        Assert.NotNull(ShapeRegistry.Scalar<TypeHandlerTests.Profile>(compiledAllowed: true));
    }

    [Fact]
    public void Output_members_of_the_linked_suite_are_written_through_generated_accessors()
    {
        // OutputMemberTests (linked) runs its calls here over these: a public setter, a private one (an accessor), a chain, a field.
        Assert.NotNull(ShapeRegistry.OutputOf(typeof(OutputMemberTests.Account), "Id"));
        Assert.NotNull(ShapeRegistry.OutputOf(typeof(OutputMemberTests.Account), "Note"));
        Assert.NotNull(ShapeRegistry.OutputOf(typeof(OutputMemberTests.Account), "Home.City"));
        Assert.NotNull(ShapeRegistry.OutputOf(typeof(OutputMemberTests.Account), "Count"));
        Assert.Null(ShapeRegistry.OutputOf(typeof(OutputMemberTests.Account), "ReadOnly")); // refused by the runtime: no setter

        var account = new OutputMemberTests.Account { Id = 3, Home = new OutputMemberTests.Address { City = "Bergen" } };
        OutputMember note = OutputMember.For<OutputMemberTests.Account>(a => a.Home!.City);
        Assert.Equal(("Account.Home.City", "HomeCity", typeof(string)), (note.Path, note.DefaultName, note.Type));
        Assert.Equal("Bergen", note.Read(account, "HomeCity"));
    }

    private static string[] ArgumentNames<T>(T args) =>
        ShapeRegistry.ArgumentsOf(typeof(T))?.Names ?? throw new InvalidOperationException("no argument shape");
}
