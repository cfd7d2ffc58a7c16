using Orseis.Mapping;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Mapping;

/// <summary>
/// <see cref="ColumnMatcher"/>, <see cref="ScalarTypes"/>, and <see cref="RowMapper{T}"/> with more layouts than it keeps
/// as recent: every one still maps by its own mapper, built once.
/// </summary>
public sealed class MatchingAndRecentLayoutsTests
{
    [Theory]
    [InlineData("UserId", 1)]
    [InlineData("userid", 2)]
    [InlineData("USERID", 1)]
    [InlineData("User_Id", 0)]
    [InlineData("Name", 3)]
    [InlineData("na_me", 3)]
    [InlineData("u_serid", 0)]
    [InlineData("Other", -1)]
    public void Columns_match_exactly_then_ignoring_case_then_ignoring_underscores(string member, int expected) =>
        Assert.Equal(expected, new ColumnMatcher(["user_id", "UserId", "userid", "na_me"]).Find(member));

    [Fact]
    public void The_first_column_wins_at_each_level()
    {
        Assert.Equal(1, new ColumnMatcher(["b", "a", "a"]).Find("a"));
        Assert.Equal(1, new ColumnMatcher(["b", "A", "A"]).Find("a"));
        Assert.Equal(1, new ColumnMatcher(["b", "a_b", "ab_"]).Find("AB"));
        Assert.Equal(-1, new ColumnMatcher([]).Find("a"));
    }

    [Theory]
    [InlineData(typeof(int), true)]
    [InlineData(typeof(long?), true)]
    [InlineData(typeof(bool), true)]
    [InlineData(typeof(char), true)]
    [InlineData(typeof(double), true)]
    [InlineData(typeof(MappingTests.Color), true)]
    [InlineData(typeof(MappingTests.Color?), true)]
    [InlineData(typeof(string), true)]
    [InlineData(typeof(decimal), true)]
    [InlineData(typeof(DateTime), true)]
    [InlineData(typeof(DateTimeOffset?), true)]
    [InlineData(typeof(DateOnly), true)]
    [InlineData(typeof(TimeOnly), true)]
    [InlineData(typeof(TimeSpan), true)]
    [InlineData(typeof(Guid), true)]
    [InlineData(typeof(byte[]), true)]
    [InlineData(typeof(object), true)]
    [InlineData(typeof(Person), false)]
    [InlineData(typeof(PersonRecord), false)]
    [InlineData(typeof(int[]), false)]
    [InlineData(typeof(Uri), false)]
    public void Scalars_are_the_types_read_from_one_column(Type type, bool scalar) => Assert.Equal(scalar, ScalarTypes.IsScalar(type));

    [Theory]
    [InlineData(typeof(int), true, false)]
    [InlineData(typeof(long), true, false)]
    [InlineData(typeof(short), true, false)]
    [InlineData(typeof(byte), true, false)]
    [InlineData(typeof(sbyte), true, false)]
    [InlineData(typeof(ushort), true, false)]
    [InlineData(typeof(uint), true, false)]
    [InlineData(typeof(ulong), true, false)]
    [InlineData(typeof(double), false, true)]
    [InlineData(typeof(float), false, true)]
    [InlineData(typeof(decimal), false, true)]
    [InlineData(typeof(bool), false, false)]
    [InlineData(typeof(char), false, false)]
    [InlineData(typeof(int?), false, false)]
    public void Integral_and_floating_types(Type type, bool integral, bool floating)
    {
        Assert.Equal(integral, ScalarTypes.IsIntegral(type));
        Assert.Equal(floating, ScalarTypes.IsFloating(type));
    }

    [Fact]
    public void Types_are_described_by_their_short_names()
    {
        Assert.Equal("Int32", ScalarTypes.Describe(typeof(int)));
        Assert.Equal("Nullable<Int32>", ScalarTypes.Describe(typeof(int?)));
        Assert.Equal("Person", ScalarTypes.Describe(typeof(Person)));
    }

    public sealed class Wide
    {
        public long A { get; set; }
        public string? B { get; set; }
        public double C { get; set; }
    }

    [Fact]
    public void More_layouts_than_are_kept_as_recent_each_map_by_their_own_mapper_built_once()
    {
        using var file = new SqliteFile();
        using Database db = file.Open(ExecutionMode.ReuseConnection);
        // Twelve layouts of the same type: the column order and the storage class of each value differ.
        string[] texts =
        [
            "select 1 as a, 'x' as b, 1.5 as c", "select 'x' as b, 1 as a, 1.5 as c", "select 1.5 as c, 1 as a, 'x' as b",
            "select 1 as a, 'x' as b, 2 as c", "select 'x' as b, 1 as a, 2 as c", "select 2 as c, 1 as a, 'x' as b",
            "select 1 as a, 'x' as b", "select 'x' as b, 1 as a", "select 1 as a, 1.5 as c", "select 1.5 as c, 1 as a",
            "select 1 as a", "select 'x' as b",
        ];
        int before = RowMapper<Wide>.CachedLayouts;
        for (int round = 0; round < 3; round++)
        {
            foreach (string sql in texts)
            {
                Wide row = db.QuerySingle<Wide>(sql);
                Assert.Equal(sql.Contains(" as a", StringComparison.Ordinal) ? 1 : 0, row.A);
                Assert.Equal(sql.Contains(" as b", StringComparison.Ordinal) ? "x" : null, row.B);
                Assert.Equal(sql.Contains("1.5 as c", StringComparison.Ordinal) ? 1.5 : sql.Contains("2 as c", StringComparison.Ordinal) ? 2.0 : 0.0, row.C);
            }

            Assert.Equal(before + texts.Length, RowMapper<Wide>.CachedLayouts);
        }
    }

    [Fact]
    public void A_recent_layout_from_other_sql_is_checked_by_name()
    {
        using var file = new SqliteFile();
        using Database db = file.Open(ExecutionMode.ReuseConnection);
        // The same types in the same order under other names, each text fixing its names: each maps by its own names.
        for (int i = 0; i < 2; i++)
        {
            Wide first = db.QuerySingle<Wide>("select 3 as a, 'x' as b, 4 as c");
            Wide second = db.QuerySingle<Wide>("select 5 as c, 'y' as b, 6 as a");
            Assert.Equal((3L, "x", 4.0), (first.A, first.B, first.C));
            Assert.Equal((6L, "y", 5.0), (second.A, second.B, second.C));
        }
    }
}
