using Orseis.Mapping;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Mapping;

/// <summary>The mapper cache never maps a column by a stale layout: same types with other names, or <c>*</c> after a schema change.</summary>
public sealed class LayoutCacheTests : IDisposable
{
    private readonly SeededDatabase _db = new(RunnerKind.Session);

    public void Dispose() => _db.Dispose();

    public sealed record AB(long A, long B);

    [Fact]
    public void The_same_types_under_other_names_are_mapped_by_name()
    {
        SqlRunner db = _db.Runner;
        for (int i = 0; i < 3; i++)
        {
            Assert.Equal(new AB(1, 2), db.QuerySingle<AB>("select 1 as a, 2 as b"));
            Assert.Equal(new AB(2, 1), db.QuerySingle<AB>("select 1 as b, 2 as a"));
        }
    }

    [Fact]
    public void Select_star_follows_a_schema_change_between_two_runs_of_the_same_text()
    {
        SqlRunner db = _db.Runner;
        db.Execute("create table ab (a integer, b integer)");
        db.Execute("insert into ab values (1, 2)");
        const string Sql = "select * from ab";
        Assert.Equal(new AB(1, 2), db.QuerySingle<AB>(Sql));
        db.Execute("drop table ab");
        db.Execute("create table ab (b integer, a integer)");
        db.Execute("insert into ab (a, b) values (1, 2)");
        Assert.Equal(new AB(1, 2), db.QuerySingle<AB>(Sql));
    }

    public sealed record Alternating(long Id, decimal? V);

    [Fact]
    public void Rows_that_alternate_between_layouts_each_map_by_their_own_and_reuse_it()
    {
        SqlRunner db = _db.Runner;
        db.Execute("create table alternating (id integer primary key, v numeric)");
        db.Execute("insert into alternating values (1, 2.5), (2, null), (3, 7), (4, 'text')");
        const string Sql = "select id, v from alternating where id = @id";
        int layouts = 0;
        for (int pass = 0; pass < 3; pass++)
        {
            Assert.Equal(new Alternating(1, 2.5m), db.QuerySingle<Alternating>(Sql, new { id = 1 }));
            Assert.Equal(new Alternating(2, null), db.QuerySingle<Alternating>(Sql, new { id = 2 }));
            Assert.Equal(new Alternating(3, 7m), db.QuerySingle<Alternating>(Sql, new { id = 3 }));
            var error = Assert.Throws<MappingException>(() => db.QuerySingle<Alternating>(Sql, new { id = 4 }));
            Assert.Equal("v", error.Column);
            if (pass == 0)
                layouts = RowMapper<Alternating>.CachedLayouts;
            else
                Assert.Equal(layouts, RowMapper<Alternating>.CachedLayouts);
        }

        Assert.True(layouts >= 3, $"expected a layout per storage class, found {layouts}");
    }

    [Theory]
    [InlineData("select a, b from t", true)]
    [InlineData("  SELECT a from t where x = @x", true)]
    [InlineData("select * from t", false)]
    [InlineData("select count(*) from t", false)]
    [InlineData("exec proc", false)]
    [InlineData("with x as (select 1 as a) select a from x", false)]
    [InlineData("select 1 as a; select 2 as b", false)]
    public void Only_plain_select_lists_fix_their_column_names(string sql, bool fixedNames) =>
        Assert.Equal(fixedNames, RowMapper<AB>.NamesFixedBy(sql));

    public sealed class Converted
    {
        public bool Flag { get; set; }
        public decimal Price { get; set; }
        public Guid Key { get; set; }
    }

    [Fact]
    public void Integer_booleans_real_decimals_and_text_guids_map_without_losing_data()
    {
        var key = Guid.NewGuid();
        Converted row = _db.Runner.QuerySingle<Converted>("select 1 as flag, 2.25 as price, @key as key", new { key = key.ToString() });
        Assert.True(row.Flag);
        Assert.Equal(2.25m, row.Price);
        Assert.Equal(key, row.Key);

        var error = Assert.Throws<MappingException>(() => _db.Runner.QuerySingle<Converted>("select 2 as flag, 1.0 as price, @key as key", new { key = key.ToString() }));
        Assert.Equal("flag", error.Column);
        var badKey = Assert.Throws<MappingException>(() => _db.Runner.QuerySingle<Converted>("select 1 as flag, 1.0 as price, 'nope' as key"));
        Assert.Equal("key", badKey.Column);
        Assert.DoesNotContain("nope", badKey.Message, StringComparison.Ordinal);
    }
}

/// <summary>
/// A NULL reaching a member that cannot hold it is always reported as a NULL, whichever read path the compiled mapper
/// took (typed getter, checked conversion, text parser or converter).
/// </summary>
public sealed class NullIntoValueTypeTests
{
    public sealed class Strict
    {
        public int I { get; set; }
        public long L { get; set; }
        public double R { get; set; }
        public decimal D { get; set; }
        public bool B { get; set; }
        public DateTime When { get; set; }
        public DateOnly Day { get; set; }
        public TimeOnly Time { get; set; }
        public Guid Key { get; set; }
        public Guid Blob { get; set; }
        public MappingTests.Color Color { get; set; }
    }

    [Theory]
    [InlineData("i")]
    [InlineData("l")]
    [InlineData("r")]
    [InlineData("d")]
    [InlineData("b")]
    [InlineData("when")]
    [InlineData("day")]
    [InlineData("time")]
    [InlineData("key")]
    [InlineData("blob")]
    [InlineData("color")]
    public void A_null_in_a_later_row_is_named_as_a_null(string column)
    {
        using var file = new SqliteFile();
        using Database db = file.Open();
        db.Execute("create table strict (i integer, l integer, r real, d real, b integer, [when] text, day text, time text, key text, blob blob, color integer)");
        db.Execute("insert into strict values (1, 2, 1.5, 2.5, 1, '2024-01-01 10:00:00', '2024-01-02', '10:30', @key, @blob, 2)",
            new { key = Guid.NewGuid().ToString(), blob = Guid.NewGuid().ToByteArray() });
        db.Execute("insert into strict select * from strict");
        db.Execute("update strict set [" + column + "] = null where rowid = 2");

        var error = Assert.Throws<MappingException>(() => db.Query<Strict>("select * from strict order by rowid"));
        Assert.Equal(column, error.Column);
        Assert.Contains("is NULL", error.Message, StringComparison.Ordinal);
    }
}
