using Microsoft.Data.Sqlite;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Parameters;

/// <summary>Every way of passing arguments binds them as parameters, never as SQL text.</summary>
public sealed class ParameterTests : IDisposable
{
    private readonly SeededDatabase _db = new(RunnerKind.OpenPerCall);

    private SqlRunner Db => _db.Runner;

    public void Dispose() => _db.Dispose();

    public sealed record Filter(int MinAge, string Prefix);

    public enum Level
    {
        Low = 1,
        High = 7,
    }

    [Fact]
    public void Anonymous_objects_records_and_classes_bind_by_property_name()
    {
        Assert.Equal(2, Db.Scalar<int>("select count(*) from people where age >= @minAge and name like @prefix", new { minAge = 23, prefix = "person%" }));
        Assert.Equal(2, Db.Scalar<int>("select count(*) from people where age >= @MinAge and name like @Prefix", new Filter(23, "person%")));
        Assert.Equal(1, Db.Scalar<int>("select count(*) from people where id = @Id", new Person { Id = 3 }));
    }

    public sealed record ById(long Id, int MinAge);

    [Fact]
    public void One_argument_type_binds_by_each_text_s_own_spelling_across_alternating_texts()
    {
        for (int pass = 0; pass < 3; pass++)
        {
            Assert.Equal("person 2", Db.Scalar<string>("select name from people where id = @id", new ById(2, 0)));
            Assert.Equal("person 3", Db.Scalar<string>("select name from people where id = @ID", new ById(3, 0)));
            Assert.Equal(2, Db.Scalar<int>("select count(*) from people where age >= @minage", new ById(0, 23)));
            Assert.Equal(1, Db.Scalar<int>("select count(*) from people where id = @Id and age >= @MinAge", new ById(4, 23)));
            Assert.Equal(5, Db.Scalar<int>("select count(*) from people", new ById(4, 23)));
        }
    }

    [Fact]
    public void Dictionaries_bind_by_key()
    {
        Assert.Equal("person 4", Db.Scalar<string>("select name from people where id = @id", new Dictionary<string, object?> { ["id"] = 4 }));
        Assert.Equal("person 4", Db.Scalar<string>("select name from people where id = @id", new Dictionary<string, object> { ["id"] = 4 }));
        Assert.Equal("person 4", Db.Scalar<string>("select name from people where id = @id", new Dictionary<string, int> { ["id"] = 4 }));
    }

    [Fact]
    public void Explicit_db_parameters_are_used_as_given_and_can_be_reused()
    {
        var id = new SqliteParameter("@id", 2);
        Assert.Equal("person 2", Db.Scalar<string>("select name from people where id = @id", id));
        Assert.Equal("person 2", Db.Scalar<string>("select name from people where id = @id", new[] { id }));
        var output = new[] { new SqliteParameter("@a", 1), new SqliteParameter("@b", 2) };
        Assert.Equal(3, Db.Scalar<int>("select @a + @b", output));
    }

    [Fact]
    public void Null_and_enum_values_bind_as_null_and_as_their_number()
    {
        Assert.Equal(1, Db.Scalar<int>("select count(*) from people where age is @age", new { age = (int?)null }));
        Assert.Equal(7, Db.Scalar<int>("select @level", new { level = Level.High }));
        Assert.Equal(Level.High, Db.Scalar<Level>("select @level", new { level = Level.High }));
    }

    [Theory]
    [InlineData("select count(*) from people where id in @ids")]
    [InlineData("select count(*) from people where id in (@ids)")]
    [InlineData("select count(*) from people where id IN ( @IDS )")]
    public void Lists_expand_into_one_parameter_per_element(string sql)
    {
        Assert.Equal(3, Db.Scalar<int>(sql, new { ids = new[] { 1, 2, 4 } }));
        Assert.Equal(2, Db.Scalar<int>(sql, new { ids = new List<long> { 3, 5 } }));
    }

    [Fact]
    public void An_empty_list_matches_nothing_with_in_and_everything_with_not_in()
    {
        Assert.Equal(0, Db.Scalar<int>("select count(*) from people where id in @ids", new { ids = Array.Empty<int>() }));
        Assert.Equal(5, Db.Scalar<int>("select count(*) from people where id not in @ids", new { ids = new List<int>() }));
        Assert.Equal(5, Db.Scalar<int>("select count(*) from people where id not in (@ids)", new { ids = new List<int>() }));
    }

    [Fact]
    public void A_list_with_no_place_in_the_sql_is_an_error_naming_it()
    {
        var error = Assert.Throws<ArgumentException>(() => Db.Scalar<int>("select count(*) from people", new { ids = new[] { 1 } }));
        Assert.Contains("'ids'", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Arguments_without_members_are_refused_with_their_type()
    {
        var error = Assert.Throws<ArgumentException>(() => Db.Scalar<int>("select 1", new object()));
        Assert.Contains("System.Object", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Robert'); DROP TABLE people;--")]
    [InlineData("' OR '1'='1")]
    [InlineData("@id \" ; -- /* */ ?")]
    [InlineData("")]
    public void Interpolated_holes_are_parameters_so_injection_strings_round_trip_verbatim(string hostile)
    {
        Db.Execute($"insert into people (id, name) values ({100}, {hostile})");
        Assert.Equal(hostile, Db.Scalar<string>($"select name from people where id = {100}"));
        Assert.Equal(1, Db.Scalar<int>($"select count(*) from people where name = {hostile}"));
        Assert.Equal(6, Db.Scalar<int>("select count(*) from people"));
    }

    [Fact]
    public async Task Interpolated_forms_exist_for_every_call()
    {
        int id = 3;
        int[] ids = [1, 2];
        Assert.Equal("person 3", Db.Scalar<string>($"select name from people where id = {id}"));
        Assert.Equal("person 3", await Db.ScalarAsync<string>($"select name from people where id = {id}"));
        Assert.Equal(2, Db.Query<Person>($"select id, name from people where id in {ids}").Count);
        Assert.Equal(2, (await Db.QueryAsync<Person>($"select id, name from people where id in {ids}")).Count);
        Assert.Equal(3, Db.QuerySingle<Person>($"select id, name from people where id = {id}").Id);
        Assert.Equal(3, (await Db.QuerySingleAsync<Person>($"select id, name from people where id = {id}")).Id);
        Assert.Null(Db.QuerySingleOrDefault<Person>($"select id, name from people where id = {-id}"));
        Assert.Null(await Db.QuerySingleOrDefaultAsync<Person>($"select id, name from people where id = {-id}"));
        Assert.Equal(3, Db.QueryFirst<Person>($"select id, name from people where id >= {id} order by id").Id);
        Assert.Equal(3, (await Db.QueryFirstAsync<Person>($"select id, name from people where id >= {id} order by id")).Id);
        Assert.Null(Db.QueryFirstOrDefault<Person>($"select id, name from people where id = {-id}"));
        Assert.Null(await Db.QueryFirstOrDefaultAsync<Person>($"select id, name from people where id = {-id}"));
        Assert.Equal([1L, 2], Db.Stream<Person>($"select id, name from people where id in {ids} order by id").Select(p => p.Id));
        Assert.Equal(2, await Db.StreamAsync<Person>($"select id, name from people where id in {ids}").CountAsync());
        Assert.Equal(1, Db.Execute($"update people set name = {"renamed"} where id = {id}"));
        Assert.Equal(1, await Db.ExecuteAsync($"update people set name = {"again"} where id = {id}"));
        Assert.Equal(0, Db.Scalar<int>($"select count(*) from people where id in {Array.Empty<int>()}"));
        Assert.Equal(5, Db.Scalar<int>($"select count(*) from people where id not in {new List<int>()}"));
    }

    [Fact]
    public void A_format_specifier_in_a_hole_is_refused()
    {
        decimal price = 1.5m;
        var error = Assert.Throws<FormatException>(() => Db.Scalar<int>($"select {price:N2}"));
        Assert.Contains(":N2", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("1.5", error.Message, StringComparison.Ordinal);
    }
    [Fact]
    public async Task A_sequence_of_argument_objects_is_for_Execute_only_and_other_calls_say_so()
    {
        object[] items = [new { id = 1 }, new { id = 2 }];
        var query = Assert.Throws<ArgumentException>(() => Db.Query<Person>("select id, name from people where id = @id", items));
        Assert.Equal("args", query.ParamName);
        Assert.Contains("Only Execute and ExecuteAsync run a statement once per item", query.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("SyncRoot", query.Message, StringComparison.Ordinal);
        await Assert.ThrowsAsync<ArgumentException>(() => Db.ScalarAsync<int>("select count(*) from people where id = @id", items));
        Assert.Throws<ArgumentException>(() => Db.Stream<Person>("select id, name from people where id = @id", new List<object> { new { id = 1 } }).ToList());

        // The same sequence runs once per item through Execute.
        Assert.Equal(0, Db.Execute("update people set age = age where id = @id and 1 = 0", items));
    }

    public sealed class Secretive
    {
        public override string ToString() => "secret-value-17";
    }

    [Fact]
    public void A_value_of_a_type_no_provider_can_send_is_refused_naming_the_parameter_never_the_value()
    {
        var error = Assert.Throws<ArgumentException>(() => Db.Scalar<int>("select count(*) from people where name = @who", new { who = new Secretive() }));
        Assert.Equal("args", error.ParamName);
        Assert.Contains("'@who'", error.Message, StringComparison.Ordinal);
        Assert.Contains("Secretive", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("secret-value-17", error.ToString(), StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => Db.Scalar<int>("select @who", new { who = new { nested = 1 } }));

        // The framework's types still go to the provider as they are.
        Assert.Equal(1, Db.Scalar<int>("select count(*) from people where id = @id", new { id = 1m }));
        Assert.Equal(0, Db.Scalar<int>("select count(*) from people where name = @g", new { g = Guid.Empty }));
    }

    [Fact]
    public void A_tuple_of_arguments_is_refused_since_its_names_are_only_Item1_Item2()
    {
        var error = Assert.Throws<ArgumentException>(() => Db.Query<Person>("select id, name from people where id = @id", (id: 1, name: "x")));
        Assert.Equal("args", error.ParamName);
        Assert.Contains("tuple", error.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => Db.Scalar<int>("select @Item1", Tuple.Create(1)));
    }
}

public sealed class ParameterNameTests
{
    [Fact]
    public void Member_names_bind_to_the_sql_spelling_and_unused_members_are_not_sent()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        var person = new Person { Id = 2, Name = "unused", Age = 99 };
        Assert.Equal("person 2", db.Runner.Scalar<string>("select name from people where id = @id", person));
        Assert.Equal("person 2", db.Runner.Scalar<string>("select name from people where ID = :ID", new { id = 2 }));
        Assert.Equal(1, db.Runner.Scalar<int>("select 1", new { unused = 5 }));
    }

    [Theory]
    [InlineData("select @id", "id", "id")]
    [InlineData("select @Id + @idx", "id", "Id")]
    [InlineData("select @idx", "id", null)]
    [InlineData("select @@id", "id", null)]
    [InlineData("select x::id", "id", null)]
    [InlineData("select name_id", "id", null)]
    [InlineData("select $ID", "id", "ID")]
    public void Parameter_spellings_are_found_only_as_whole_parameter_names(string sql, string name, string? expected) =>
        Assert.Equal(expected, SqlNames.FindSpelling(sql, name));
}
