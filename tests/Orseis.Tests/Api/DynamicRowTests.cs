using System.Data;
using System.Data.Common;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>Rows read without a type (<c>dynamic</c>, <see cref="object"/>, <see cref="DynamicRow"/>) in every call form and mode.</summary>
public sealed class DynamicRowTests
{
    public static TheoryData<RunnerKind> Kinds => SeededDatabase.AllKinds;

    private const string Two = "select id, name, age from people where id in (4, 5) order by id";

    [Theory]
    [MemberData(nameof(Kinds))]
    public void A_row_reads_by_member_name_index_and_dictionary_with_null_for_null(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        List<dynamic> rows = db.Runner.Query<dynamic>(Two);
        Assert.Equal(2, rows.Count);
        dynamic four = rows[0];
        Assert.Equal(4L, four.id); // the provider's own value: SQLite's INTEGER is a long
        Assert.Equal("person 4", four.NAME); // names match ignoring case when no column has the exact spelling
        Assert.Equal(24, (int)four.age);
        Assert.Equal("person 4", four["name"]);
        Assert.Equal(4L, four[0]);
        Assert.Null(rows[1].age); // NULL is null, not DBNull

        var dictionary = (IDictionary<string, object?>)rows[1];
        Assert.Equal(["id", "name", "age"], dictionary.Keys);
        Assert.Equal([5L, "person 5", null], dictionary.Values);
        Assert.Equal(3, dictionary.Count);
        Assert.True(dictionary.ContainsKey("Age"));
        var readOnly = (IReadOnlyDictionary<string, object?>)rows[1];
        Assert.True(readOnly.TryGetValue("name", out object? name));
        Assert.Equal("person 5", name);
        Assert.False(readOnly.TryGetValue("missing", out _));
        Assert.Equal("{DynamicRow id = '5', name = 'person 5', age = NULL}", rows[1].ToString());
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Every_call_form_reads_dynamic_rows(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        SqlRunner r = db.Runner;
        const string One = "select id, name from people where id = 2";
        Assert.Equal(["person 4", "person 5"], (await r.QueryAsync<dynamic>(Two)).Select(row => (string)row.name));
        Assert.Equal(2L, r.QueryFirst<dynamic>(One).id);
        Assert.Equal(2L, (await r.QueryFirstAsync<dynamic>(One)).id);
        Assert.Equal(2L, r.QuerySingle<dynamic>(One).id);
        Assert.Equal(2L, (await r.QuerySingleAsync<dynamic>(One)).id);
        Assert.Equal(2L, r.QueryFirstOrDefault<dynamic>(One)!.id);
        Assert.Equal(2L, (await r.QuerySingleOrDefaultAsync<dynamic>(One))!.id);
        Assert.Null(r.QuerySingleOrDefault<dynamic>("select id from people where id = 99"));
        Assert.Null(await r.QueryFirstOrDefaultAsync<dynamic>("select id from people where id = 99"));

        Assert.Equal([4L, 5L], r.Stream<dynamic>(Two).Select(row => (long)row.id));
        var streamed = new List<long>();
        await foreach (dynamic row in r.StreamAsync<dynamic>(Two))
            streamed.Add(row.id);
        Assert.Equal([4L, 5L], streamed);

        long id = 3;
        Assert.Equal("person 3", r.QuerySingle<dynamic>($"select name from people where id = {id}").name);
        Assert.Equal("person 3", (await r.QueryAsync<dynamic>($"select name from people where id = {id}"))[0].name);
        Assert.Equal([3L], r.Stream<dynamic>($"select id from people where id = {id}").Select(row => (long)row.id));

        // The typed form: DynamicRow itself, without dynamic dispatch.
        List<DynamicRow> typed = r.Query<DynamicRow>(Two);
        Assert.Equal("person 5", typed[1].Get<string>("name"));

        using (GridReader grid = r.QueryMultiple(One + "; " + Two + "; " + One + "; " + One))
        {
            Assert.Equal(2L, grid.ReadSingle<dynamic>().id);
            Assert.Equal(["person 4", "person 5"], grid.Read<dynamic>().Select(row => (string)row.name));
            Assert.Equal(2L, (await grid.ReadFirstAsync<dynamic>()).id);
            Assert.Equal(2L, (await grid.ReadAsync<DynamicRow>())[0]["id"]);
        }
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Dappers_non_generic_calls_read_dynamic_rows_and_their_interpolated_forms_send_parameters(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        SqlRunner r = db.Runner;
        const string One = "select id, name from people where id = @id";
        Assert.Equal(["person 4", "person 5"], r.Query(Two).Select(row => (string)row.name));
        Assert.Equal(2, (await r.QueryAsync(Two)).Count);
        Assert.Equal(2L, r.QueryFirst(One, new { id = 2 }).id);
        Assert.Equal(2L, (await r.QueryFirstAsync(One, new { id = 2 })).id);
        Assert.Equal(2L, r.QuerySingle(One, new { id = 2 }).id);
        Assert.Equal(2L, (await r.QuerySingleAsync(One, new { id = 2 })).id);
        Assert.Null(r.QueryFirstOrDefault(One, new { id = 9 }));
        Assert.Null(await r.QueryFirstOrDefaultAsync(One, new { id = 9 }));
        Assert.Null(r.QuerySingleOrDefault(One, new { id = 9 }));
        Assert.Null(await r.QuerySingleOrDefaultAsync(One, new { id = 9 }));
        Assert.Equal([4L, 5L], r.Stream(Two).Select(row => (long)row.id));
        int streamed = 0;
        await foreach (dynamic row in r.StreamAsync(Two))
            streamed += (int)row.id;
        Assert.Equal(9, streamed);

        // Each hole is a parameter: a quote in the value cannot end the string.
        string tricky = "person 1' or '1'='1";
        Assert.Empty(r.Query($"select id from people where name = {tricky}"));
        Assert.Empty(await r.QueryAsync($"select id from people where name = {tricky}"));
        Assert.Null(r.QueryFirstOrDefault($"select id from people where name = {tricky}"));
        Assert.Null(await r.QuerySingleOrDefaultAsync($"select id from people where name = {tricky}"));
        Assert.Empty(r.Stream($"select id from people where name = {tricky}"));
        long id = 1;
        Assert.Equal("person 1", r.QuerySingle($"select name from people where id = {id}").name);
        Assert.Equal("person 1", (await r.QueryFirstAsync($"select name from people where id = {id}")).name);

        await using GridReader grid = await r.QueryMultipleAsync(Two + "; " + Two + "; select 1 as a; select 2 as a; select 3 as a; select 4 as a");
        Assert.Equal(2, grid.Read().Count);
        Assert.Equal(2, (await grid.ReadAsync()).Count);
        Assert.Equal(1L, grid.ReadFirst().a);
        Assert.Equal(2L, (await grid.ReadSingleAsync()).a);
        Assert.Equal(3L, grid.ReadFirstOrDefault()!.a);
        Assert.Equal(4L, (await grid.ReadSingleOrDefaultAsync())!.a);
    }

    [Fact]
    public void Rows_of_one_result_share_their_column_names_and_each_is_one_object_and_its_values()
    {
        using var db = new SeededDatabase(RunnerKind.Session);
        List<DynamicRow> rows = db.Runner.Query<DynamicRow>("select id, name from people order by id");
        Assert.Equal(5, rows.Count);
        object names = ColumnsOf(rows[0]);
        Assert.All(rows, row => Assert.Same(names, ColumnsOf(row)));

        // A repeated query finds the same columns again: the names are read once per layout, not per call.
        Assert.Same(names, ColumnsOf(db.Runner.Query<DynamicRow>("select id, name from people order by id")[4]));

        // Per row: the row (2 fields) and its array of values; the values are the provider's own.
        Assert.Equal(2, typeof(DynamicRow).GetFields(System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.NonPublic).Length);
        using DbConnection connection = OpenSqlite(db.Path);
        using DbCommand command = connection.CreateCommand();
        command.CommandText = "select 1 as a, 2 as b";
        using DbDataReader reader = command.ExecuteReader();
        Assert.True(reader.Read());
        Func<DbDataReader, DynamicRow> parse = db.Database.RowParser<DynamicRow>(reader);
        parse(reader); // warm
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 100; i++)
            parse(reader);
        long perRow = (GC.GetAllocatedBytesForCurrentThread() - before) / 100;

        // 32 bytes of row, 40 of a two-value array, two boxed longs of 24: no dictionary, no names.
        Assert.True(perRow <= 32 + 40 + 2 * 24, $"a row of two integers allocated {perRow} bytes");
    }

    private static DbConnection OpenSqlite(string path)
    {
        var connection = new Microsoft.Data.Sqlite.SqliteConnection("Data Source=" + path);
        connection.Open();
        return connection;
    }

    private static object ColumnsOf(DynamicRow row) =>
        typeof(DynamicRow).GetField("_columns", System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.NonPublic)!.GetValue(row)!;

    [Fact]
    public void Duplicate_and_empty_column_names_are_kept_a_name_reaches_the_first_and_a_position_each()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        dynamic row = db.Runner.QuerySingle<dynamic>("select 1 as a, 2 as a, 3 as \"\", 4 as A");
        Assert.Equal(1L, row.a);
        Assert.Equal(4L, row.A); // the exact spelling first
        Assert.Equal(2L, row[1]);
        Assert.Equal(3L, row[""]);
        var columns = ((IEnumerable<KeyValuePair<string, object?>>)row).ToList();
        Assert.Equal(["a", "a", "", "A"], columns.Select(c => c.Key));
        Assert.Equal(4, ((DynamicRow)row).Count);
    }

    [Fact]
    public void An_unknown_name_throws_naming_the_columns_but_no_value()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        dynamic row = db.Runner.QuerySingle<dynamic>("select id, name from people where id = 1");
        var error = Assert.Throws<KeyNotFoundException>(() => (object)row.nmae);
        Assert.Equal("The row has no column 'nmae' (its columns: id, name). Names match exactly, then ignoring case.", error.Message);
        Assert.Throws<KeyNotFoundException>(() => ((DynamicRow)row)["nmae"]);
        var index = Assert.Throws<ArgumentOutOfRangeException>(() => ((DynamicRow)row)[2]);
        Assert.Contains("The row has 2 columns (0 to 1).", index.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("person 1", error.Message + index.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_row_can_be_changed_like_Dappers_and_the_change_stays_in_that_row()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        List<dynamic> rows = db.Runner.Query<dynamic>("select 1 as a, 2 as b, 3 as c union all select 4, 5, 6");
        dynamic obj = rows[0];
        IDictionary<string, object?> dict = obj;
        Assert.True(dict.Remove("a"));
        Assert.False(dict.Remove("d"));
        Assert.Equal(2, dict.Count);
        dict.Add("d", 4);
        Assert.Throws<ArgumentException>(() => dict.Add("b", 9));
        Assert.Equal("b,c,d", string.Join(",", dict.Keys.Order()));
        Assert.Equal(4, (int)obj.d);
        Assert.Throws<KeyNotFoundException>(() => (object)obj.a);
        obj.b = "two";
        obj.NewProperty = new Uri("http://example.net/");
        Assert.Equal("two", obj.b);
        Assert.Equal(new Uri("http://example.net/"), obj.NewProperty);

        // The other row of the result keeps its own columns.
        IDictionary<string, object?> other = rows[1];
        Assert.Equal(["a", "b", "c"], other.Keys);
        Assert.Equal(5L, other["b"]);
    }

    [Fact]
    public void Get_converts_as_a_member_would_with_the_databases_type_handlers_and_names_the_column_on_failure()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall, o => o.AddTypeHandler(new TypeHandlerTests.UserIdHandler()));
        DynamicRow row = db.Runner.QuerySingle<DynamicRow>("select id, name, age, created_at, 'u-7' as user from people where id = 5");
        Assert.Equal(5, row.Get<int>("id"));
        Assert.Equal(new DateOnly(2024, 1, 5), row.Get<DateOnly>("created_at"));
        Assert.Null(row.Get<int?>("age"));
        Assert.Equal(new TypeHandlerTests.UserId("u-7"), row.Get<TypeHandlerTests.UserId>(4));
        Assert.Equal("u-7", row["user"]); // the value itself is the provider's: handlers apply only when asked for a type

        var nullError = Assert.Throws<MappingException>(() => row.Get<int>("age"));
        Assert.Equal("age", nullError.Column);
        Assert.Contains("is NULL in this row, but the requested type Int32 cannot hold NULL", nullError.Message, StringComparison.Ordinal);
        using var lenient = new SeededDatabase(RunnerKind.OpenPerCall, o => o.NullKeepsDefault = true);
        Assert.Equal(0, lenient.Runner.QuerySingle<DynamicRow>("select age from people where id = 5").Get<int>("age"));
        var textError = Assert.Throws<MappingException>(() => row.Get<int>("name"));
        Assert.Equal("Cannot read column 'name' (held as String) as Int32: There is no conversion from String to Int32.", textError.Message);
        Assert.DoesNotContain("person 5", textError.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void A_dynamic_part_of_a_multi_mapped_row_holds_its_columns_and_is_null_when_its_split_column_is(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        dynamic person = db.Runner.Query<dynamic, long, dynamic>(
            "select 1 Id, 'Mr' Title, 'John' Surname, 4 AddressCount", (p, count) => p, splitOn: "AddressCount")[0];
        var asDictionary = (IDictionary<string, object?>)person;
        Assert.Equal(["Id", "Title", "Surname"], asDictionary.Keys);

        List<string> pairs = db.Runner.Query<Person, dynamic, string>(
            "select p.id, p.name, q.id, q.name from people p left join people q on q.id = p.id + 3 order by p.id",
            (p, next) => p.Id + ":" + (next is null ? "none" : (string)next.name));
        Assert.Equal(["1:person 4", "2:person 5", "3:none", "4:none", "5:none"], pairs);
    }
}
