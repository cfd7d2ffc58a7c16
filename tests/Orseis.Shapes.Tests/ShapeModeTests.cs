using Orseis.Mapping;
using Orseis.Shapes;
using Orseis.Tests.Infrastructure;
using Orseis.Tests.Mapping;

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

    private static string[] ArgumentNames<T>(T args) =>
        ShapeRegistry.ArgumentsOf(typeof(T))?.Names ?? throw new InvalidOperationException("no argument shape");
}
