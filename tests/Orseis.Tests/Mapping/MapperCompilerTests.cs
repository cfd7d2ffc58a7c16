using Orseis.Mapping;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Mapping;

/// <summary>
/// What the compiled mappers read and how: which constructor is chosen, which members are written, each read path
/// (typed getter, checked conversion, Boolean from an integer, text parser, converter) and what a failure says.
/// </summary>
public sealed class MapperCompilerTests : IDisposable
{
    private readonly SqliteFile _file = new();
    private readonly Database _db;

    public MapperCompilerTests() => _db = _file.Open();

    public void Dispose()
    {
        _db.Dispose();
        _file.Dispose();
    }

    public sealed class TwoConstructors
    {
        public TwoConstructors(long id) => (Id, Used) = (id, "short");

        public TwoConstructors(long id, string name) => (Id, Name, Used) = (id, name, "long");

        public long Id { get; }

        public string? Name { get; }

        public string Used { get; }
    }

    [Fact]
    public void The_longest_constructor_with_a_column_for_every_parameter_is_used()
    {
        TwoConstructors both = _db.QuerySingle<TwoConstructors>("select 1 as id, 'n' as name");
        Assert.Equal(("long", 1L, "n"), (both.Used, both.Id, both.Name));
        TwoConstructors idOnly = _db.QuerySingle<TwoConstructors>("select 2 as id");
        Assert.Equal(("short", 2L, (string?)null), (idOnly.Used, idOnly.Id, idOnly.Name));
    }

    public sealed class NoPublicConstructor
    {
        private NoPublicConstructor(long id) => Id = id;

        public long Id { get; set; }
    }

    public sealed record NeedsTwo(long Id, long Weight, long Height);

    [Fact]
    public void Without_a_usable_constructor_the_error_names_the_first_missing_parameter_and_the_columns()
    {
        var missing = Assert.Throws<MappingException>(() => _db.Query<NeedsTwo>("select 1 as id, 2 as other"));
        Assert.Equal(
            "NeedsTwo has no parameterless constructor, and no public constructor has a column for each of its parameters " +
            "(no column for constructor parameter 'Weight'; columns: id, other).",
            missing.Message);
        Assert.Equal("NeedsTwo", missing.Member);
        Assert.Null(missing.Column);

        var none = Assert.Throws<MappingException>(() => _db.Query<NoPublicConstructor>("select 1 as id"));
        Assert.Contains("(no column for any constructor: the type has none that is public; columns: id)", none.Message, StringComparison.Ordinal);
    }

    public sealed class NothingMatches
    {
        public long Something { get; set; }
    }

    [Fact]
    public void A_type_no_column_matches_is_refused_listing_the_columns()
    {
        var error = Assert.Throws<MappingException>(() => _db.Query<NothingMatches>("select 1 as a, 2 as b"));
        Assert.Equal(
            "None of the result's columns (a, b) matches a constructor parameter, settable property or field of NothingMatches. " +
            "Name the columns after the members (case and underscores are ignored) or alias them in SQL.",
            error.Message);
        Assert.Equal("NothingMatches", error.Member);
    }

    public sealed class Members
    {
#pragma warning disable CA1051 // public fields are what is being mapped
        public long Field;
        public readonly long ReadOnlyField;
#pragma warning restore CA1051
        private readonly long _hidden = -1;

        public long Settable { get; set; }

        public long PrivateSet { get; private set; }

        public long InitOnly { get; init; }

        public long GetOnly { get; }

        public long Computed => 42;

        public long this[int index] { get => index; set { } }

        internal long Internal { get; set; } = -2;

        private long Secret { get; set; } = -3;

        public (long Hidden, long Internal, long Secret) NonPublic => (_hidden, Internal, Secret);
    }

    [Fact]
    public void Public_members_are_written_whatever_their_setter_as_Dapper_does_but_not_non_public_members()
    {
        Members row = _db.QuerySingle<Members>(
            "select 1 as field, 2 as readonlyfield, 3 as settable, 4 as privateset, 5 as initonly, 6 as getonly, 7 as computed, " +
            "8 as item, 9 as _hidden, 10 as internal, 11 as secret");
        Assert.Equal((1L, 2L, 3L, 4L, 5L, 6L), (row.Field, row.ReadOnlyField, row.Settable, row.PrivateSet, row.InitOnly, row.GetOnly));
        Assert.Equal(42, row.Computed);
        Assert.Equal((-1L, -2L, -3L), row.NonPublic);
    }

    public sealed class FirstMatchWins
    {
        public long Value { get; set; }
    }

    [Fact]
    public void An_exact_name_beats_a_case_insensitive_one_which_beats_one_ignoring_underscores()
    {
        Assert.Equal(1, _db.QuerySingle<FirstMatchWins>("select 3 as va_lue, 2 as value, 1 as Value").Value);
        Assert.Equal(2, _db.QuerySingle<FirstMatchWins>("select 3 as va_lue, 2 as VALUE").Value);
        Assert.Equal(3, _db.QuerySingle<FirstMatchWins>("select 3 as va_lue, 4 as other").Value);
        Assert.Equal(5, _db.QuerySingle<FirstMatchWins>("select 5 as value, 6 as value").Value);
    }

    public sealed record WithBody(long Id)
    {
        public long Id2 { get; set; }
    }

    [Fact]
    public void A_member_filled_by_the_constructor_is_not_written_again()
    {
        WithBody row = _db.QuerySingle<WithBody>("select 7 as id, 8 as id2");
        Assert.Equal((7L, 8L), (row.Id, row.Id2));
    }

    public sealed class Scaled(long id)
    {
        public long Id { get; set; } = id * 10;
    }

    [Fact]
    public void A_settable_member_whose_name_a_constructor_parameter_took_keeps_what_the_constructor_made_of_it()
    {
        Assert.Equal(30, _db.QuerySingle<Scaled>("select 3 as id").Id);
    }

    public sealed class ThreeOrTwo
    {
        public ThreeOrTwo(long a, long b, long c) => A = a + b + c;

        public ThreeOrTwo(long a, long d) => A = a + d;

        public long A { get; }
    }

    [Fact]
    public void The_error_names_the_missing_parameter_of_the_longest_constructor()
    {
        var error = Assert.Throws<MappingException>(() => _db.Query<ThreeOrTwo>("select 1 as a"));
        Assert.Contains("(no column for constructor parameter 'b'; columns: a)", error.Message, StringComparison.Ordinal);
    }

    public sealed record SmallInConstructor(long Id, byte Small);

    [Fact]
    public void A_constructor_parameter_that_fails_is_named_as_type_and_parameter()
    {
        var error = Assert.Throws<MappingException>(() => _db.QuerySingle<SmallInConstructor>("select 1 as id, 300 as small"));
        Assert.Equal("SmallInConstructor(Small)", error.Member);
        Assert.Equal("small", error.Column);
        Assert.Contains("to member 'SmallInConstructor(Small)' (Byte)", error.Message, StringComparison.Ordinal);
    }

    public sealed class Numbers
    {
        public int Count { get; set; }
        public int? Maybe { get; set; }
        public string? Text { get; set; }
    }

    [Fact]
    public void On_a_provider_whose_getters_do_not_refuse_null_a_null_is_still_refused_for_a_value_type_and_mapped_for_the_others()
    {
        // DataTableReader (System.Data) is no provider Orseis trusts to refuse NULL: every read is NULL-checked first.
        using var table = new System.Data.DataTable();
        table.Columns.Add("count", typeof(int));
        table.Columns.Add("maybe", typeof(int));
        table.Columns.Add("text", typeof(string));
        table.Rows.Add(4, DBNull.Value, DBNull.Value);
        table.Rows.Add(DBNull.Value, 5, "t");
        using System.Data.DataTableReader reader = table.CreateDataReader();
        Assert.True(reader.Read());
        Func<System.Data.Common.DbDataReader, Numbers> map = RowMapper<Numbers>.Get(reader, "select count, maybe, text from t");
        Numbers first = map(reader);
        Assert.Equal((4, (int?)null, (string?)null), (first.Count, first.Maybe, first.Text));
        Assert.True(reader.Read());
        var error = Assert.Throws<MappingException>(() => map(reader));
        Assert.Equal("count", error.Column);
        Assert.StartsWith("Column 'count' (database type Int32) is NULL in a row, but member 'Numbers.Count' (Int32) cannot hold NULL.", error.Message, StringComparison.Ordinal);
    }

    public sealed class Conversions
    {
        public decimal FromInteger { get; set; }
        public double FromIntegerToDouble { get; set; }
        public decimal FromReal { get; set; }
        public float FromRealToFloat { get; set; }
        public short Narrowed { get; set; }
        public bool Flag { get; set; }
        public bool? MaybeFlag { get; set; }
        public DateTime When { get; set; }
        public DateTimeOffset At { get; set; }
        public TimeSpan Span { get; set; }
        public Guid Key { get; set; }
        public char Letter { get; set; }
        public object? Anything { get; set; }
        public string? Text { get; set; }
        public long? MaybeNumber { get; set; }
        public MappingTests.Color? MaybeColor { get; set; }
        public MappingTests.Color Color { get; set; }
        public int FromText { get; set; }
    }

    [Fact]
    public void Every_read_path_gives_the_member_s_value()
    {
        var key = Guid.NewGuid();
        Conversions row = _db.QuerySingle<Conversions>(
            """
            select 3 as FromInteger, 4 as FromIntegerToDouble, 2.5 as FromReal, 1.5 as FromRealToFloat, 300 as Narrowed,
                   1 as Flag, 0 as MaybeFlag, '2024-03-04 05:06:07' as [When], '2024-03-04T05:06:07+01:00' as At, '1.02:03:04' as Span,
                   @key as Key, 'z' as Letter, 42 as Anything, 17 as Text, null as MaybeNumber, null as MaybeColor, 2 as Color, '12' as FromText
            """,
            new { key = key.ToString() });
        Assert.Equal(3m, row.FromInteger);
        Assert.Equal(4.0, row.FromIntegerToDouble);
        Assert.Equal(2.5m, row.FromReal);
        Assert.Equal(1.5f, row.FromRealToFloat);
        Assert.Equal((short)300, row.Narrowed);
        Assert.True(row.Flag);
        Assert.False(row.MaybeFlag);
        Assert.Equal(new DateTime(2024, 3, 4, 5, 6, 7), row.When);
        Assert.Equal(new DateTimeOffset(2024, 3, 4, 5, 6, 7, TimeSpan.FromHours(1)), row.At);
        Assert.Equal(new TimeSpan(1, 2, 3, 4), row.Span);
        Assert.Equal(key, row.Key);
        Assert.Equal('z', row.Letter);
        Assert.Equal(42L, row.Anything);
        Assert.Equal("17", row.Text);
        Assert.Null(row.MaybeNumber);
        Assert.Null(row.MaybeColor);
        Assert.Equal(MappingTests.Color.Green, row.Color);
        Assert.Equal(12, row.FromText);
    }

    public sealed class Narrow
    {
        public byte Small { get; set; }
    }

    public sealed class Flagged
    {
        public bool Flag { get; set; }
    }

    public sealed class Colored
    {
        public MappingTests.Color Color { get; set; }
    }

    [Fact]
    public void Checked_conversions_fail_with_the_column_and_member_named()
    {
        var overflow = Assert.Throws<MappingException>(() => _db.QuerySingle<Narrow>("select 256 as small"));
        Assert.Equal(
            "Cannot map column 'small' (database type INTEGER, read as Int64) to member 'Narrow.Small' (Byte): the value is out of the member type's range.",
            overflow.Message);
        Assert.IsType<OverflowException>(overflow.InnerException);

        var flag = Assert.Throws<MappingException>(() => _db.QuerySingle<Flagged>("select 2 as flag"));
        Assert.Equal("Cannot map column 'flag' (database type INTEGER, read as Int64) to member 'Flagged.Flag' (Boolean): Only 0 and 1 convert to Boolean.", flag.Message);

        var color = Assert.Throws<MappingException>(() => _db.QuerySingle<Colored>("select 1e300 as color"));
        Assert.Equal("color", color.Column);

        var decimalOverflow = Assert.Throws<MappingException>(() => _db.QuerySingle<decimal>("select 1e300"));
        Assert.Contains("out of the member type's range", decimalOverflow.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Scalars_read_the_first_column_as_the_requested_type()
    {
        Assert.Equal(MappingTests.Color.Green, _db.QuerySingle<MappingTests.Color>("select 2, 'ignored'"));
        Assert.Equal((MappingTests.Color?)MappingTests.Color.Red, _db.QuerySingle<MappingTests.Color?>("select 1"));
        Assert.Null(_db.QuerySingle<MappingTests.Color?>("select null"));
        Assert.Null(_db.QuerySingle<string?>("select null"));
        Assert.Equal(2.0f, _db.QuerySingle<float>("select 2.0"));
        Assert.Equal(3.0, _db.QuerySingle<double>("select 3"));
        Assert.Equal((byte)9, _db.QuerySingle<byte>("select 9"));
        Assert.Equal(9L, _db.Scalar<object>("select 9")); // QuerySingle<object> is a DynamicRow, as in Dapper
        Assert.Equal(true, _db.QuerySingle<bool?>("select 1"));
        Assert.Equal(new DateOnly(2024, 1, 2), _db.QuerySingle<DateOnly?>("select '2024-01-02'"));
        var error = Assert.Throws<MappingException>(() => _db.QuerySingle<int>("select null"));
        Assert.Equal(
            "Column 'null' (database type BLOB) is NULL in a row, but the requested type Int32 cannot hold NULL. Make it Int32? (nullable) or COALESCE the column in SQL.",
            error.Message);
        Assert.Null(error.Member);
    }
}
