namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="SqlNames"/> (where the SQL uses a parameter and how it spells it), <see cref="Cancellation"/> (a
/// cancellation the provider reported as something else) and <see cref="CommandRequest"/>.
/// </summary>
public sealed class SqlNamesAndCancellationTests
{
    [Theory]
    [InlineData("@id", "id", "id", '@')]
    [InlineData("select ?id", "id", "id", '?')]
    [InlineData("select :ID", "id", "ID", ':')]
    [InlineData("select a :id", "id", "id", ':')]
    [InlineData("select $Id)", "id", "Id", '$')]
    [InlineData("select @idx, x@id, @id_, @ID", "id", "ID", '@')]
    [InlineData("select (@id)", "id", "id", '@')]
    [InlineData("select @s", "s", "s", '@')] // the name first appears inside a keyword
    public void A_parameter_is_found_with_its_spelling_and_prefix(string sql, string name, string spelling, char prefix)
    {
        Assert.Equal(spelling, SqlNames.FindSpelling(sql, name, out char found));
        Assert.Equal(prefix, found);
        Assert.Equal(spelling, SqlNames.FindSpelling(sql, name));
    }

    [Theory]
    [InlineData("id = 1", "id")]
    [InlineData("select id", "id")]
    [InlineData("select x@id", "id")]
    [InlineData("select @@id", "id")]
    [InlineData("@@rowcount", "rowcount")] // a server variable at the very start
    [InlineData("a:id", "id")]
    [InlineData("select a::id", "id")]
    [InlineData("select @id_x", "id")]
    [InlineData("select @id9", "id")]
    [InlineData("select #id", "id")]
    [InlineData("", "id")]
    [InlineData("select @i", "id")]
    public void Names_that_are_not_whole_parameters_are_not_found(string sql, string name)
    {
        Assert.Null(SqlNames.FindSpelling(sql, name, out char prefix));
        Assert.Equal('\0', prefix);
    }

    [Fact]
    public void The_caller_s_string_is_returned_when_the_sql_spells_it_the_same()
    {
        string name = new('i', 1);
        name += "d";
        Assert.Same(name, SqlNames.FindSpelling("select @id", name));
        Assert.NotSame(name, SqlNames.FindSpelling("select @iD", name));
    }

    [Fact]
    public void A_cancellation_is_misreported_only_when_the_token_was_cancelled_and_the_error_is_something_else()
    {
        using var cts = new CancellationTokenSource();
        Assert.False(Cancellation.IsMisreported(new InvalidOperationException(), cts.Token));
        cts.Cancel();
        Assert.True(Cancellation.IsMisreported(new InvalidOperationException(), cts.Token));
        Assert.False(Cancellation.IsMisreported(new OperationCanceledException(), cts.Token));
        Assert.False(Cancellation.IsMisreported(new TaskCanceledException(), cts.Token));
    }

    [Fact]
    public void A_misreported_cancellation_becomes_one_for_the_caller_s_token_keeping_the_provider_s_error()
    {
        using var cts = new CancellationTokenSource();
        cts.Cancel();
        var error = new NullReferenceException();
        OperationCanceledException reported = Cancellation.Reported(error, cts.Token);
        Assert.Equal(cts.Token, reported.CancellationToken);
        Assert.Same(error, reported.InnerException);
        Assert.Equal("The call was cancelled; the provider reported the cancellation as System.NullReferenceException (the inner exception).", reported.Message);
    }

    [Fact]
    public void A_command_request_needs_its_sql_and_keeps_what_it_was_given()
    {
        Assert.Equal("sql", Assert.Throws<ArgumentNullException>(() => new CommandRequest(null!, null, null)).ParamName);
        var args = new { a = 1 };
        var request = new CommandRequest("select 1", args, TimeSpan.FromSeconds(3));
        Assert.Equal("select 1", request.Sql);
        Assert.Same(args, request.Args);
        Assert.Equal(TimeSpan.FromSeconds(3), request.Timeout);
    }
}
