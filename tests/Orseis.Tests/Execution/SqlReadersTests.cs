using Microsoft.Data.Sqlite;
using Orseis.Diagnostics;
using Orseis.Mapping;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Execution;

/// <summary>
/// The readers of SQL text (<see cref="SqlNames"/>, <see cref="ListExpansion"/>, <see cref="Literals"/>, <see cref="SqlWords"/>,
/// <see cref="SqlOperation"/>, <see cref="SqlCollection"/>, <c>RowMapper.NamesFixedBy</c>, <c>ExecuteMany.Batchable</c>)
/// on one table of places a token hides in: what each looks for, written in a string literal, a quoted name or a comment,
/// is not taken for a parameter, a list, a literal, a statement's end or a keyword; written outside, it still is.
/// </summary>
public sealed class SqlReadersTests : IDisposable
{
    private readonly SqliteCommand _sqlite = new();

    public void Dispose() => _sqlite.Dispose();

    /// <summary>Places where every server reads text as no token: <c>{0}</c> is what hides there.</summary>
    public static TheoryData<string> Places => new()
    {
        "'{0}'",
        "'it''s {0}'",
        "N'{0}'",
        "\"{0}\"",
        "\"a\"\"{0}\"",
        "`{0}`",
        "[{0}]",
        "[a]]{0}]",
        "$${0}$$",
        "$tag${0}$tag$",
        "E'\\' {0}'",
        "-- {0}\n",
        "--{0}\r\n",
        "/* {0} */",
        "/*{0}*/",
    };

    private static string Hide(string place, string what) => string.Format(System.Globalization.CultureInfo.InvariantCulture, place, what);

    [Theory]
    [MemberData(nameof(Places))]
    public void SqlNames_finds_no_parameter_in_a_literal_a_quoted_name_or_a_comment(string place)
    {
        string sql = "select " + Hide(place, "@id") + ", 1";
        Assert.Null(SqlNames.FindSpelling(sql, "id", out char prefix));
        Assert.Equal('\0', prefix);
        Assert.Equal("Id", SqlNames.FindSpelling(sql + " where a = @Id", "id", out prefix));
        Assert.Equal('@', prefix);
    }

    [Theory]
    [MemberData(nameof(Places))]
    public void ListExpansion_expands_only_the_list_outside_literals_quoted_names_and_comments(string place)
    {
        string hidden = Hide(place, "@ids");
        string expanded = ListExpansion.Expand(_sqlite, "select " + hidden + " where x in @ids or y in (" + Hide(place, "(@ids)") + ")", "ids", new[] { 1, 2 });
        Assert.Equal("select " + hidden + " where x in (@ids0, @ids1) or y in (" + Hide(place, "(@ids)") + ")", expanded);
        Assert.Equal(2, _sqlite.Parameters.Count);
    }

    [Theory]
    [MemberData(nameof(Places))]
    public void ListExpansion_refuses_a_list_whose_only_place_is_hidden(string place)
    {
        var error = Assert.Throws<ArgumentException>(() => ListExpansion.Expand(_sqlite, "select 1 where x in " + Hide(place, "@ids"), "ids", new[] { 1 }));
        Assert.StartsWith("Parameter 'ids' is a list, but the SQL has no '@ids'", error.Message, StringComparison.Ordinal);
        Assert.Empty(_sqlite.Parameters);
    }

    [Theory]
    [MemberData(nameof(Places))]
    public void Literals_writes_only_the_literal_outside_literals_quoted_names_and_comments(string place)
    {
        string hidden = Hide(place, "{=n}");
        Assert.Equal("select 5, " + hidden, Literals.Replace("select {=n}, " + hidden, new { n = 5 }, out HashSet<string>? used));
        Assert.Equal("n", Assert.Single(used!));
        Assert.Equal("select " + hidden, Literals.Replace("select " + hidden, new { m = 5 }, out used)); // no member n: not asked for
        Assert.Null(used);
    }

    [Theory]
    [MemberData(nameof(Places))]
    public void SqlOperation_reads_one_statement_when_the_semicolon_is_hidden(string place)
    {
        Assert.Equal(0, SqlOperation.Find("select 1, " + Hide(place, "; drop table t") + " from t"));
        Assert.Equal(0, SqlOperation.Find("select 1, " + Hide(place, ";") + " from t;  "));
        Assert.Equal(-1, SqlOperation.Find("select 1, " + Hide(place, ";") + " from t; delete from t"));
    }

    [Theory]
    [MemberData(nameof(Places))]
    public void SqlCollection_reads_no_keyword_or_comma_in_a_literal_a_quoted_name_or_a_comment(string place)
    {
        string sql = "select a from items where b = " + Hide(place, "1 join x, y from z") + " order by a";
        Assert.Equal("items", SqlCollection.Find(sql, "SELECT").ToString());
        Assert.Equal("", SqlCollection.Find("select a from items, " + Hide(place, "x") + " y", "SELECT").ToString());
    }

    [Theory]
    [MemberData(nameof(Places))]
    public void NamesFixedBy_sees_no_star_or_semicolon_in_a_literal_a_quoted_name_or_a_comment(string place)
    {
        Assert.True(RowMapper<object>.NamesFixedBy("select a, " + Hide(place, "*;") + " as b from t"));
        Assert.False(RowMapper<object>.NamesFixedBy("select *, " + Hide(place, "x") + " as b from t"));
        Assert.False(RowMapper<object>.NamesFixedBy("select a, " + Hide(place, "x") + " as b from t; select 1"));
    }

    [Theory]
    [MemberData(nameof(Places))]
    public void Batchable_sees_no_semicolon_in_a_literal_a_quoted_name_or_a_comment(string place)
    {
        List<object> items = [new { a = 1 }, new { a = 2 }];
        Assert.True(ExecuteMany.Batchable("insert into t (a, b) values (@a, " + Hide(place, ";") + ")", items, SqlDialect.None));
        Assert.False(ExecuteMany.Batchable("insert into t (a, b) values (@a, " + Hide(place, "x") + ");", items, SqlDialect.None));
    }

    [Fact]
    public void A_comment_before_the_statement_is_read_past()
    {
        Assert.Equal(2, SqlOperation.Find("/* select */ -- select\n update t set a = 1"));
        Assert.True(RowMapper<object>.NamesFixedBy("-- cached\n/* by name */ select a, b from t"));
        Assert.Equal("t", SqlCollection.Find("/* from x */ select a from t", "SELECT").ToString());
    }

    [Fact]
    public void An_unterminated_comment_runs_to_the_end_as_the_server_reads_it()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        Assert.Equal(7, db.Runner.Scalar<long>("select @id /* and @other", new { id = 7, other = 8 }));
    }

    [Fact]
    public void A_list_and_a_literal_in_a_string_are_left_as_written_when_the_statement_runs()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        Assert.Equal("@ids in (@ids) 2", db.Runner.QuerySingle<string>(
            "select '@ids in (@ids) ' || count(*) from people where id in @ids -- and id in @ids", new { ids = new[] { 1, 2 } }));
        Assert.Equal("{=n} /* {=n} */ 5", db.Runner.QuerySingle<string>("select '{=n} /* {=n} */ ' || {=n} /* {=n} */", new { n = 5 }));
        Assert.Equal("it's @name", db.Runner.QuerySingle<string>("select 'it''s @name' where @name = 'person 1'", new { name = "person 1" }));
    }

    [Theory]
    [MemberData(nameof(Places))]
    public void SqlWords_reads_no_paging_keyword_in_a_literal_a_quoted_name_or_a_comment(string place)
    {
        foreach (string paging in new[] { "offset 10", "fetch next 10 rows only", "limit 10", "limit @n", "top (20)" })
        {
            Assert.False(SqlWords.Pages("select a from t where b = " + Hide(place, paging)), paging + " in " + place);
            Assert.True(SqlWords.Pages("select a from t where b = " + Hide(place, paging) + " " + paging), paging + " after " + place);
        }
    }

    [Theory]
    [InlineData("select * from t order by id limit 20", true)]
    [InlineData("select * from t order by id limit ?", true)]
    [InlineData("select * from t order by id limit :n", true)]
    [InlineData("select * from t order by id offset 40 rows fetch first 20 rows only", true)]
    [InlineData("SELECT TOP 10 * FROM t", true)]
    [InlineData("SELECT TOP(@n) * FROM t", true)]
    [InlineData("select * from t where id = @id limit 1", false)]
    [InlineData("SELECT TOP 1 * FROM t WHERE id = @id", false)]
    [InlineData("SELECT TOP (1) * FROM t WHERE id = @id", false)]
    [InlineData("select limit_reached, offsets from t where id = @id", false)]
    [InlineData("select * from t where id = @id -- limit 10", false)]
    public void SqlWords_tells_a_paging_statement(string sql, bool pages) => Assert.Equal(pages, SqlWords.Pages(sql));

    [Theory]
    [InlineData("insert into t values (@a)", true)]
    [InlineData("  /* audit */ UPDATE t set a = @a", true)]
    [InlineData("-- note\ndelete from t where id = @id", true)]
    [InlineData("select 'insert' from t", false)]
    [InlineData("/* insert */ select a from t", false)]
    [InlineData("inserted_at", false)]
    public void SqlWords_tells_a_write_by_its_first_keyword(string sql, bool writes) =>
        Assert.Equal(writes, SqlWords.Writes(sql));

    /// <summary>
    /// Text the server would refuse goes to it as written: an unterminated string or comment hides what follows (as the
    /// server reads it), no reader throws, and the error is the server's, naming the fault. A list with no place left is
    /// Orseis' own error naming the list.
    /// </summary>
    [Theory]
    [InlineData("select 'abc @id", "unrecognized token")]
    [InlineData("select \"@id", "unrecognized token")]
    public void Bad_sql_goes_to_the_server_as_written(string sql, string serverSays)
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        var error = Assert.Throws<SqliteException>(() => db.Runner.Scalar<string>(sql, new { id = 1 }));
        Assert.Contains(serverSays, error.Message, StringComparison.Ordinal);
        var list = Assert.Throws<ArgumentException>(() => db.Runner.Scalar<string>("select 1 where x in '@ids", new { ids = new[] { 1 } }));
        Assert.StartsWith("Parameter 'ids' is a list, but the SQL has no '@ids'", list.Message, StringComparison.Ordinal);
    }
}
