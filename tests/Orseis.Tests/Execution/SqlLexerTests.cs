namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="SqlLexer"/>: its tokens, where servers differ (<see cref="SqlDialect"/>), and that text the server would
/// refuse is read to its end without an error.
/// </summary>
public sealed class SqlLexerTests
{
    private const SqlDialect MySql = SqlDialect.BackslashEscapes | SqlDialect.MySqlComments;

    /// <summary>The names of the parameters the lexer finds, prefix included.</summary>
    private static string Parameters(string sql, SqlDialect dialect = SqlDialect.None)
    {
        var found = new List<string>();
        int at = 0;
        while (SqlLexer.NextName(sql, ref at, dialect, out SqlToken token))
        {
            if (token.Kind == SqlTokenKind.Parameter)
                found.Add(sql.Substring(token.Start, token.Length));
        }

        return string.Join(" ", found);
    }

    /// <summary>Every token, as kind:text.</summary>
    private static string Tokens(string sql, SqlDialect dialect = SqlDialect.None)
    {
        var found = new List<string>();
        int at = 0;
        while (SqlLexer.Next(sql, ref at, dialect, out SqlToken token))
            found.Add(token.Kind + ":" + sql.Substring(token.Start, token.Length));
        return string.Join(" ", found);
    }

    [Theory]
    [InlineData("select @a, :b, ?c, $d, $1 from t", "@a :b ?c $d $1")]
    [InlineData("select @a::int, a::b, x@y, @@rowcount, a:b, @e@f", "@a @e")]
    [InlineData("select ? , $, @, :=, {=}", "")]
    [InlineData("select a$b, $x$ @y $x$, @z", "@z")]
    [InlineData("select ARRAY[@a, @b], x[@c], (y)[@d], [@e]", "@a @b @c @d")]
    [InlineData("select E'\\' @a', e'@b''@c', 'x\\' @d", "@d")]
    [InlineData("select 'a''@b', \"c\"\"@d\", `e``@f`, [g]]@h]", "")]
    [InlineData("select @ä, @名前, @a_1", "@ä @名前 @a_1")]
    public void Parameters_are_found_outside_strings_names_and_comments(string sql, string expected) =>
        Assert.Equal(expected, Parameters(sql));

    [Fact]
    public void Tokens_have_their_kinds()
    {
        Assert.Equal(
            "Word:select Symbol:* Symbol:, Word:N String:'a''b' Symbol:, QuotedName:\"c\" Word:from QuotedName:[d e] Word:where " +
            "Parameter:@x Symbol:= Literal:{=n} Symbol:; String:$$x$$",
            Tokens("select * /* c */, N'a''b', \"c\" -- d\n from [d e] where @x = {=n}; $$x$$"));
    }

    [Theory]
    [InlineData("select 'it\\'s @a', @b", "@b", "@a")]
    [InlineData("select \"it\\\" @a\", @b", "@b", "@a")]
    [InlineData("select 1 # @a\n, @b", "@b", "@a @b")]
    [InlineData("select 1 --@a\n, @b", "@a @b", "@b")]
    [InlineData("select 1 -- @a\n, @b", "@b", "@b")]
    public void MySql_reads_backslash_escapes_and_hash_comments_and_needs_a_blank_after_two_dashes(string sql, string mySql, string other)
    {
        Assert.Equal(mySql, Parameters(sql, MySql));
        Assert.Equal(other, Parameters(sql));
    }

    [Fact]
    public void Block_comments_nest_only_where_the_server_nests_them()
    {
        const string Sql = "select /* a /* @b */ @c */ @d";
        Assert.Equal("@d", Parameters(Sql, SqlDialect.NestedComments));
        Assert.Equal("@c @d", Parameters(Sql));
    }

    [Theory]
    [InlineData("select '@a")]
    [InlineData("select \"@a")]
    [InlineData("select `@a")]
    [InlineData("select [@a")]
    [InlineData("select $$@a")]
    [InlineData("select $t$@a$t")]
    [InlineData("select /* @a")]
    [InlineData("select /* /* @a */")]
    [InlineData("select -- @a")]
    [InlineData("select 'a\\")]
    public void Unterminated_text_runs_to_the_end_and_hides_what_follows(string sql)
    {
        foreach (SqlDialect dialect in new[] { SqlDialect.None, MySql, SqlDialect.NestedComments })
            Assert.Equal("", Parameters(sql, dialect));
    }

    /// <summary>Every cut of texts with every kind of token reads to its end, each token after the last, never throwing.</summary>
    [Fact]
    public void Any_text_is_read_to_its_end_without_an_error()
    {
        const string Sample = "select E'\\'x' , $t$ y $t$, \"a\"\"b\", [c]]d], `e`, @f::int, {=g}, ?h, :i -- j\n /* k /* l */ m */ # n\n$1;";
        foreach (SqlDialect dialect in new[] { SqlDialect.None, MySql, SqlDialect.NestedComments })
        {
            for (int length = 0; length <= Sample.Length; length++)
            {
                for (int start = 0; start < length; start += 7)
                {
                    string sql = Sample[start..length];
                    int at = 0, last = -1;
                    while (SqlLexer.Next(sql, ref at, dialect, out SqlToken token))
                    {
                        Assert.True(token.Start > last && token.Length > 0 && token.End <= sql.Length, sql);
                        last = token.Start;
                    }

                    Assert.Equal(sql.Length, at);
                    Parameters(sql, dialect);
                }
            }
        }
    }
}
