using System.Data;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Parameters;

/// <summary>Dapper's literal replacement, <c>{=name}</c>, ported from its LiteralTests to SQLite.</summary>
public sealed class LiteralTests
{
    public enum Small : byte
    {
        A = 2,
        B = 3,
    }

    public enum Big : long
    {
        X = 5_000_000_000,
    }

    [Fact]
    public void Numbers_booleans_and_enums_are_written_as_literals()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        var args = new { x = Small.B, y = 123.45m, z = Big.X, t = true, f = false, d = 0.25, n = (int?)null };
        Assert.Equal("3|123.45|5000000000|1|0|0.25|", db.Runner.QuerySingle<string>(
            "select {=x} || '|' || {=y} || '|' || {=z} || '|' || {=t} || '|' || {=f} || '|' || {=d} || '|' || coalesce({=n}, '')", args));
        Assert.Equal(42, db.Runner.QuerySingleOrDefault<int?>("select 42 where 1 = {=val}", new { val = true }));
        Assert.Null(db.Runner.QuerySingleOrDefault<int?>("select 42 where 1 = {=val}", new { val = false }));
    }

    [Fact]
    public void A_negative_number_is_parenthesised_so_it_can_never_start_a_comment()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        Assert.Equal(15, db.Runner.Scalar<int>("select 10-{=n}", new { n = -5 }));
        Assert.Equal(7.5, db.Runner.Scalar<double>("select 10-{=n}", new { n = 2.5 }));
        Assert.Equal(15m, db.Runner.Scalar<decimal>("select 10-{=n}", new { n = -5m }));
    }

    [Fact]
    public void Limits_where_a_parameter_is_not_wanted_and_literals_next_to_parameters_and_lists()
    {
        using var db = new SeededDatabase(RunnerKind.Session);
        Assert.Equal([2L, 3L], db.Runner.Query<long>("select id from people where id >= @min order by id limit {=take}", new { min = 2,
            take = 2 }));
        Assert.Equal([1L], db.Runner.Query<long>("select @x where 1 in @ids and 1 = {=a}", new { x = 1L, ids = new[] { 1, 2, 3 }, a = 1 }));
        Assert.Equal(2, db.Runner.Scalar<int>("select count(*) from people where id in {=ids}", new { ids = new[] { 1, 3, 9 } }));
        Assert.Equal(0, db.Runner.Scalar<int>("select count(*) from people where id in {=ids}", new { ids = Array.Empty<int>() }));
        Assert.Equal(5, db.Runner.Scalar<int>("select count(*) from people where id not in {=ids}", new { ids = new List<long>() }));
        Assert.Equal(1, db.Runner.Scalar<int>("select count(*) from people where id = {=id} and id = @id", new { id = 4 }));
    }

    [Fact]
    public void Execute_many_writes_each_items_literal_and_dictionaries_and_bags_give_them_too()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        db.Runner.Execute("create table lit (id int not null, foo int not null)");
        db.Runner.Execute("insert into lit (id, foo) values ({=id}, @foo)", new { id = 123, foo = 456 });
        db.Runner.Execute("insert into lit (id, foo) values ({=id}, @foo)", new[] { new { id = 1, foo = 2 }, new { id = 3, foo = 4 } });
        Assert.Equal(1, db.Runner.Scalar<int>("select count(*) from lit where id = {=foo}", new { foo = 123 }));
        Assert.Equal(123 + 456 + 1 + 2 + 3 + 4, db.Runner.Scalar<int>("select sum(id) + sum(foo) from lit"));

        Assert.Equal(1, db.Runner.Scalar<int>("select count(*) from lit where id = {=ID}", new Dictionary<string, object?> { ["id"] = 3 }));
        Assert.Equal(1, db.Runner.Scalar<int>("select count(*) from lit where id = {=id}", new ParameterBag().Add("@id", 3, DbType.Int32)));
    }

    [Fact]
    public void Text_and_other_values_are_refused_naming_the_literal_never_the_value()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        var text = Assert.Throws<ArgumentException>(() => db.Runner.Query<int>("select {=name}",
            new { name = "x'; drop table people; --secret" }));
        Assert.Equal("args", text.ParamName);
        Assert.Contains("The literal {=name} is a String: only numbers, booleans, enums, NULL and lists of them", text.Message,
            StringComparison.Ordinal);
        Assert.Contains("(@name)", text.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("secret", text.Message, StringComparison.Ordinal);

        Assert.Contains("is a Guid", Assert.Throws<ArgumentException>(() => db.Runner.Query<int>("select {=g}",
            new { g = Guid.NewGuid() })).Message, StringComparison.Ordinal);
        Assert.Contains("not finite", Assert.Throws<ArgumentException>(() => db.Runner.Query<int>("select {=d}",
            new { d = double.NaN })).Message, StringComparison.Ordinal);
        Assert.Contains("is a String", Assert.Throws<ArgumentException>(() => db.Runner.Query<int>("select 1 where 1 in {=s}",
            new { s = new[] { "a" } })).Message, StringComparison.Ordinal);

        var missing = Assert.Throws<ArgumentException>(() => db.Runner.Execute("select {=top}", new { take = 1 }));
        Assert.Contains("The SQL has the literal {=top}, but the arguments have no member or entry 'top'", missing.Message,
            StringComparison.Ordinal);
        Assert.Equal(5, db.Runner.Scalar<int>("select count(*) from people"));
    }
}
