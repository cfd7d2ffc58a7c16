using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Mapping;

/// <summary>Rows map to classes, records and scalars of every listed type, through compiled, cached mappers.</summary>
public sealed class MappingTests : IDisposable
{
    private readonly SeededDatabase _db = new(RunnerKind.Session);

    private SqlRunner Db => _db.Runner;

    public void Dispose() => _db.Dispose();

    public enum Color
    {
        Red = 1,
        Green = 2,
    }

    public sealed class AllTypes
    {
        public int Int { get; set; }
        public long Long { get; set; }
        public short Short { get; set; }
        public byte Byte { get; set; }
        public bool Bool { get; set; }
        public double Double { get; set; }
        public float Float { get; set; }
        public decimal Decimal { get; set; }
        public string? Text { get; set; }
        public Guid Guid { get; set; }
        public Guid GuidFromBlob { get; set; }
        public DateTime DateTime { get; set; }
        public DateTimeOffset DateTimeOffset { get; set; }
        public DateOnly DateOnly { get; set; }
        public TimeOnly TimeOnly { get; set; }
        public TimeSpan TimeSpan { get; set; }
        public byte[]? Bytes { get; set; }
        public Color ColorFromNumber { get; set; }
        public Color ColorFromName { get; set; }
        public int? NullableNull { get; set; }
        public int? NullableValue { get; set; }
        public Color? NullableEnum { get; set; }
        public char Char { get; set; }
    }

    [Fact]
    public void Every_listed_type_maps_from_sqlite()
    {
        var guid = Guid.NewGuid();
        AllTypes row = Db.QuerySingle<AllTypes>(
            """
            select 42 as Int, 9000000000 as Long, 7 as Short, 255 as Byte, 1 as Bool, 2.5 as Double, 1.25 as Float,
                   '12.345' as Decimal, 'hello' as Text, @guid as Guid, @blob as GuidFromBlob,
                   '2024-02-29 13:14:15' as DateTime, '2024-02-29T13:14:15+02:00' as DateTimeOffset,
                   '2024-02-29' as DateOnly, '13:14:15' as TimeOnly, '01:02:03' as TimeSpan, x'00ff10' as Bytes,
                   2 as ColorFromNumber, 'red' as ColorFromName, null as NullableNull, 5 as NullableValue, 2 as NullableEnum, 'x' as Char
            """,
            new { guid = guid.ToString(), blob = guid.ToByteArray() });

        Assert.Equal(42, row.Int);
        Assert.Equal(9_000_000_000L, row.Long);
        Assert.Equal((short)7, row.Short);
        Assert.Equal((byte)255, row.Byte);
        Assert.True(row.Bool);
        Assert.Equal(2.5, row.Double);
        Assert.Equal(1.25f, row.Float);
        Assert.Equal(12.345m, row.Decimal);
        Assert.Equal("hello", row.Text);
        Assert.Equal(guid, row.Guid);
        Assert.Equal(guid, row.GuidFromBlob);
        Assert.Equal(new DateTime(2024, 2, 29, 13, 14, 15), row.DateTime);
        Assert.Equal(new DateTimeOffset(2024, 2, 29, 13, 14, 15, TimeSpan.FromHours(2)), row.DateTimeOffset);
        Assert.Equal(new DateOnly(2024, 2, 29), row.DateOnly);
        Assert.Equal(new TimeOnly(13, 14, 15), row.TimeOnly);
        Assert.Equal(new TimeSpan(1, 2, 3), row.TimeSpan);
        Assert.Equal(new byte[] { 0, 255, 16 }, row.Bytes);
        Assert.Equal(Color.Green, row.ColorFromNumber);
        Assert.Equal(Color.Red, row.ColorFromName);
        Assert.Null(row.NullableNull);
        Assert.Equal(5, row.NullableValue);
        Assert.Equal(Color.Green, row.NullableEnum);
        Assert.Equal('x', row.Char);
    }

    [Fact]
    public void Scalars_of_every_listed_type_map_from_one_column()
    {
        var guid = Guid.NewGuid();
        Assert.Equal([1, 2, 3], Db.Query<int>("select id from people where id <= 3 order by id"));
        Assert.Equal([21, 22, 23, 24, null], Db.Query<int?>("select age from people order by id"));
        Assert.Equal(guid, Db.QuerySingle<Guid>("select @g", new { g = guid.ToString() }));
        Assert.Equal(new DateOnly(2024, 1, 3), Db.QuerySingle<DateOnly>("select created_at from people where id = 3"));
        Assert.Equal(new DateTime(2024, 1, 3), Db.Scalar<DateTime>("select created_at from people where id = 3"));
        Assert.Equal(12.5m, Db.Scalar<decimal>("select 12.5"));
        Assert.Equal(Color.Green, Db.QuerySingle<Color>("select 'GREEN'"));
        Assert.Equal(new byte[] { 1, 2 }, Db.QuerySingle<byte[]>("select x'0102'"));
        Assert.Equal(new TimeOnly(8, 30), Db.QuerySingle<TimeOnly>("select '08:30'"));
    }

    public sealed record Positional(long Id, string Name, int? Age);

    public sealed class WithConstructor(long id, string name)
    {
        public long Id { get; } = id;
        public string Name { get; } = name;
        public int? Age { get; set; }
    }

    public sealed record Mixed(long Id)
    {
        public string Name { get; init; } = "";
    }

    public struct PersonStruct
    {
        public long Id { get; set; }
        public string Name { get; set; }
    }

    [Fact]
    public void Records_constructors_init_properties_and_structs_map()
    {
        Positional record = Db.QuerySingle<Positional>("select id, name, age from people where id = 1");
        Assert.Equal(new Positional(1, "person 1", 21), record);

        WithConstructor built = Db.QuerySingle<WithConstructor>("select age, name, id from people where id = 2");
        Assert.Equal((2L, "person 2", (int?)22), (built.Id, built.Name, built.Age));

        Mixed mixed = Db.QuerySingle<Mixed>("select id, name from people where id = 3");
        Assert.Equal((3L, "person 3"), (mixed.Id, mixed.Name));

        PersonStruct value = Db.QuerySingle<PersonStruct>("select id, name from people where id = 4");
        Assert.Equal((4L, "person 4"), (value.Id, value.Name));
    }

    public sealed class SnakeCase
    {
        public long PersonId { get; set; }
        public string? FullName { get; set; }
        public DateOnly CreatedAt { get; set; }
    }

    [Fact]
    public void Columns_match_members_case_insensitively_and_ignoring_underscores()
    {
        SnakeCase row = Db.QuerySingle<SnakeCase>("select id as person_id, name as FULL_NAME, created_at from people where id = 5");
        Assert.Equal(5, row.PersonId);
        Assert.Equal("person 5", row.FullName);
        Assert.Equal(new DateOnly(2024, 1, 5), row.CreatedAt);
    }

    public sealed class NonNullableAge
    {
        public long Id { get; set; }
        public int Age { get; set; }
    }

    [Fact]
    public void Null_into_a_non_nullable_member_names_the_column_its_type_and_the_member()
    {
        var error = Assert.Throws<MappingException>(() => Db.Query<NonNullableAge>("select id, age from people order by id"));
        Assert.Equal("age", error.Column);
        Assert.Equal("NonNullableAge.Age", error.Member);
        Assert.Contains("'age'", error.Message, StringComparison.Ordinal);
        Assert.Contains("INTEGER", error.Message, StringComparison.Ordinal);
        Assert.Contains("NonNullableAge.Age", error.Message, StringComparison.Ordinal);
        Assert.Contains("Int32", error.Message, StringComparison.Ordinal);
    }

    public sealed class WrongTypes
    {
        public int Name { get; set; }
    }

    public sealed class TooSmall
    {
        public byte Id { get; set; }
    }

    public sealed class BadGuid
    {
        public Guid Name { get; set; }
    }

    [Fact]
    public void Incompatible_values_name_the_column_and_member_but_never_the_value()
    {
        var wrong = Assert.Throws<MappingException>(() => Db.QuerySingle<WrongTypes>("select name from people where id = 1"));
        Assert.Equal("name", wrong.Column);
        Assert.Contains("WrongTypes.Name", wrong.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("person 1", wrong.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("person 1", wrong.InnerException?.Message ?? "", StringComparison.Ordinal);

        var overflow = Assert.Throws<MappingException>(() => Db.QuerySingle<TooSmall>("select 300 as id"));
        Assert.Contains("out of the member type's range", overflow.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("300", overflow.Message, StringComparison.Ordinal);

        var guid = Assert.Throws<MappingException>(() => Db.QuerySingle<BadGuid>("select name from people where id = 2"));
        Assert.Contains("BadGuid.Name", guid.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("person 2", guid.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Scalar_errors_name_the_column_its_database_type_and_the_requested_type()
    {
        var nullError = Assert.Throws<MappingException>(() => Db.Scalar<int>("select age from people where id = 5"));
        Assert.Contains("Int32", nullError.Message, StringComparison.Ordinal);
        Assert.Contains("Column 'age' (database type INTEGER) is NULL", nullError.Message, StringComparison.Ordinal);
        Assert.Equal("age", nullError.Column);

        var fraction = Assert.Throws<MappingException>(() => Db.Scalar<int>("select 2.5 as ratio"));
        Assert.Contains("fraction", fraction.Message, StringComparison.Ordinal);
        Assert.Contains("column 'ratio' (database type REAL", fraction.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("2.5", fraction.Message, StringComparison.Ordinal);

        var text = await Assert.ThrowsAsync<MappingException>(() => Db.ScalarAsync<long>("select name from people where id = 2"));
        Assert.Contains("column 'name' (database type TEXT", text.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("person 2", text.Message, StringComparison.Ordinal);

        var noRow = Assert.Throws<MappingException>(() => Db.Scalar<int>("select age from people where id = -1"));
        Assert.Contains("no row", noRow.Message, StringComparison.Ordinal);
        Assert.Null(noRow.Column);
        Assert.Null(Db.Scalar<int?>("select age from people where id = -1"));
        Assert.Null(Db.Scalar<int?>("select age from people where id = 5"));
        Assert.Throws<MappingException>(() => Db.QuerySingle<int>("select 'seven'"));
    }

    [Fact]
    public void Scalar_runs_the_whole_batch_like_ExecuteScalar()
    {
        // The first result's first value comes back, and a statement after it still runs.
        Assert.Equal(5, Db.Scalar<long>("select count(*) from people; update people set name = 'renamed' where id = 1"));
        Assert.Equal("renamed", Db.Scalar<string>("select name from people where id = 1"));
        Assert.Equal(6, Db.Scalar<long>("insert into people (id, name) values (6, 'six'); select count(*) from people"));
        Assert.ThrowsAny<Microsoft.Data.Sqlite.SqliteException>(() => Db.Scalar<long>("select 1; select * from no_such_table"));
    }

    public sealed class Unrelated
    {
        public int Something { get; set; }
    }

    public sealed record NeedsAge(long Id, int Weight);

    [Fact]
    public void A_type_that_matches_no_column_or_misses_a_constructor_parameter_is_named()
    {
        var none = Assert.Throws<MappingException>(() => Db.Query<Unrelated>("select id, name from people"));
        Assert.Contains("Unrelated", none.Message, StringComparison.Ordinal);
        Assert.Contains("id, name", none.Message, StringComparison.Ordinal);

        var ctor = Assert.Throws<MappingException>(() => Db.Query<NeedsAge>("select id, name from people"));
        Assert.Contains("'Weight'", ctor.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Mappers_are_cached_per_layout_and_rebuilt_for_a_new_one()
    {
        Db.Query<Positional>("select id, name, age from people");
        int before = Orseis.Mapping.RowMapper<Positional>.CachedLayouts;
        Db.Query<Positional>("select id, name, age from people");
        Assert.Equal(before, Orseis.Mapping.RowMapper<Positional>.CachedLayouts);
        Positional reordered = Db.QuerySingle<Positional>("select age, id, name from people where id = 2");
        Assert.Equal(new Positional(2, "person 2", 22), reordered);
        Assert.Equal(before + 1, Orseis.Mapping.RowMapper<Positional>.CachedLayouts);
    }

    [Fact]
    public async Task Mapping_is_thread_safe_under_concurrent_first_use()
    {
        using var file = new SqliteFile();
        using Database db = file.Open();
        var tasks = Enumerable.Range(0, 16).Select(i => Task.Run(() =>
            db.QuerySingle<ConcurrentShape>($"select {i} as a, {i * 2} as b, {"x" + i} as c")));
        ConcurrentShape[] rows = await Task.WhenAll(tasks);
        Assert.Equal(Enumerable.Range(0, 16).Select(i => (i, i * 2L, "x" + i)), rows.Select(r => (r.A, r.B, r.C)));
    }

    public sealed record ConcurrentShape(int A, long B, string C);

    public sealed class FromReal
    {
        public Color Color { get; set; }

        public bool Flag { get; set; }
    }

    [Fact]
    public void A_whole_number_stored_as_real_reads_into_an_enum_or_a_bool_and_a_fraction_is_refused()
    {
        FromReal row = Db.QuerySingle<FromReal>("select cast(2 as real) as Color, cast(1 as real) as Flag");
        Assert.Equal(Color.Green, row.Color);
        Assert.True(row.Flag);
        Assert.False(Db.QuerySingle<bool>("select 0.0"));
        Assert.Equal(Color.Red, Db.QuerySingle<Color>("select 1.0"));

        var fraction = Assert.Throws<MappingException>(() => Db.QuerySingle<FromReal>("select 1.5 as Color, 1.0 as Flag"));
        Assert.Equal("Color", fraction.Column);
        Assert.Throws<MappingException>(() => Db.QuerySingle<bool>("select 0.5"));
        Assert.Throws<MappingException>(() => Db.QuerySingle<bool>("select 2.0"));
    }
}
