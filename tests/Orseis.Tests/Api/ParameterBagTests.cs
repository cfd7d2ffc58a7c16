using System.Data;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>
/// The ParameterBag on SQLite, which has no procedures and no output parameters: inputs with types and lists, the
/// command type reaching the provider, and the errors of reading a value too early or by a name never added. Outputs
/// read back from real procedures are tested on MariaDB and PostgreSQL (Orseis.IntegrationTests, ProcedureTests).
/// </summary>
public sealed class ParameterBagTests
{
    public static TheoryData<RunnerKind> Kinds => SeededDatabase.AllKinds;

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Inputs_bind_like_a_dictionary_with_lists_prefixes_and_explicit_types(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        var args = new ParameterBag().Add("@min", 2).Add("ids", new[] { 2L, 3L, 4L }).Add("name", "person 3", DbType.String, size: 20).Add("unused", 1);
        Assert.Equal([2L, 4L], db.Runner.Query<long>("select id from people where id >= @min and id in @ids and name <> @name order by id", args));
        Assert.Equal(2, await db.Runner.ScalarAsync<int>("select count(*) from people where id in @ids and id > :min", args));
        Assert.Equal(3L, args.Get<long>("min") + 1);
        Assert.Equal("person 3", args.Get<string>("@NAME"));
    }

    [Fact]
    public void An_output_read_before_any_call_completed_and_a_name_never_added_are_clear_errors()
    {
        var args = new ParameterBag().Add("id", 1).Add("total", direction: ParameterDirection.Output, dbType: DbType.Int32);
        var early = Assert.Throws<InvalidOperationException>(() => args.Get<int>("total"));
        Assert.Contains("'total' (Output) has no value yet", early.Message, StringComparison.Ordinal);
        Assert.Contains("GridReader", early.Message, StringComparison.Ordinal);

        var unknown = Assert.Throws<ArgumentException>(() => args.Get<int>("totl"));
        Assert.Equal("name", unknown.ParamName);
        Assert.Contains("No parameter 'totl' was added to this ParameterBag (added: id, total)", unknown.Message, StringComparison.Ordinal);

        var twice = Assert.Throws<ArgumentException>(() => args.Add("@ID", 2));
        Assert.Contains("'ID' was already added", twice.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => args.Add("@", 2));
        Assert.Throws<ArgumentException>(() => args.Add("x", direction: (ParameterDirection)42));
    }

    [Fact]
    public void A_null_input_read_as_a_type_that_cannot_hold_it_names_the_parameter()
    {
        var args = new ParameterBag().Add("n", null).Add("t", "12x");
        Assert.Null(args.Get<int?>("n"));
        var error = Assert.Throws<InvalidOperationException>(() => args.Get<int>("n"));
        Assert.Contains("Parameter 'n' is NULL, but Int32 cannot hold NULL", error.Message, StringComparison.Ordinal);
        var cast = Assert.Throws<InvalidOperationException>(() => args.Get<Guid>("t"));
        Assert.Contains("Parameter 't' (a String) cannot be read as Guid", cast.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("12x", cast.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void The_command_type_reaches_the_provider_and_a_kept_command_is_text_again_for_the_next_call(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);

        // Microsoft.Data.Sqlite refuses any command type but Text: its own error shows the setting was passed on.
        var procedure = new ParameterBag { CommandType = CommandType.StoredProcedure }.Add("id", 1);
        Exception refused = Assert.ThrowsAny<Exception>(() => db.Runner.Execute("do_something", procedure));
        Assert.Contains("StoredProcedure", refused.Message, StringComparison.Ordinal);
        Assert.Equal(5, db.Runner.Scalar<int>("select count(*) from people"));
        Assert.Equal(1, db.Runner.Scalar<int>("select count(*) from people where id = @id", new ParameterBag().Add("id", 1)));
    }
}
