namespace Orseis.IntegrationTests.Suites;

/// <summary>SQL text read by Orseis' one lexer on a real server, and the provider facts a pool's report gives.</summary>
public abstract partial class ServerSuite
{
    /// <summary>
    /// A <c>@name</c>, a list and a <c>{=literal}</c> in a string literal or a comment reach the server as written, in
    /// every mode; the real ones outside are bound, expanded and written. <paramref name="serverOwnString"/> is a string
    /// literal only this server has (MySQL's backslash escape, PostgreSQL's dollar quotes), holding the same tokens.
    /// </summary>
    protected async Task Names_lists_and_literals_in_strings_and_comments_reach_the_server_as_written(string serverOwnString, string itReads)
    {
        string sql =
            "select concat('@ids (@ids) {=n} /* @id */ ', " + serverOwnString + ", ' ', count(*), ' ', {=n}) " +
            "from (select 1 as v union all select 2 union all select 3) t " +
            "where v in @ids /* and v in @ids {=n} @id */ -- and v = @id {=n}\n and v <> @id";
        var args = new { ids = new[] { 1, 2 }, n = 7, id = 3 };
        foreach (ExecutionMode mode in new[] { ExecutionMode.OpenPerCall, ExecutionMode.ReuseConnection })
        {
            Database db = Open(mode);
            Assert.Equal("@ids (@ids) {=n} /* @id */ " + itReads + " 2 7", await db.QuerySingleAsync<string>(sql, args));
            Assert.Equal("@ids (@ids) {=n} /* @id */ " + itReads + " 2 7", db.QuerySingle<string>(sql, args));
        }
    }

    /// <summary>The pool's report says what this provider publishes, naming it and not the other provider of its system.</summary>
    protected void The_report_names_its_own_provider(string provider, string otherProvider)
    {
        Database db = Open(ExecutionMode.OpenPerCall);
        Assert.Equal(1, db.Scalar<int>("select 1"));
        string visibility = db.GetPoolReport().ProviderVisibility;
        Assert.StartsWith(provider + " publishes", visibility, StringComparison.Ordinal);
        Assert.DoesNotContain(otherProvider, visibility, StringComparison.Ordinal);
    }
}
