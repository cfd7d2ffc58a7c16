using System.Collections;
using System.Data;
using System.Data.Common;
using Microsoft.Data.Sqlite;

namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="ParameterBinder"/> and <see cref="ListExpansion"/> on commands that are never run: which parameters a
/// call's arguments become, under which names, with which values and types, on SQLite and on a provider Orseis does not
/// know (which keeps bare names and gets dates and times as <see cref="DateTime"/> and <see cref="TimeSpan"/>).
/// </summary>
public sealed class ParameterBinderTests : IDisposable
{
    private readonly SqliteCommand _sqlite = new();
    private readonly ForeignCommand _foreign = new();

    public void Dispose()
    {
        _sqlite.Dispose();
        _foreign.Dispose();
    }

    private static string[] Names(DbCommand command) => [.. command.Parameters.Cast<DbParameter>().Select(p => p.ParameterName)];

    private static DbParameter Parameter(DbCommand command, string name) => command.Parameters.Cast<DbParameter>().Single(p => p.ParameterName == name);

    public enum Size : short
    {
        Small = 1,
        Large = 3,
    }

    [Fact]
    public void No_arguments_add_nothing()
    {
        Assert.Equal("select 1", ParameterBinder.Bind(_sqlite, "select 1", null));
        Assert.Empty(_sqlite.Parameters);
    }

    [Fact]
    public void Object_members_bind_under_the_sql_s_spelling_prefix_included_on_sqlite_and_bare_elsewhere()
    {
        const string Sql = "select * from t where a = @ID and b = :name and c = $Note";
        var args = new { Id = 1, Name = "n", Note = (string?)null, Unused = 4 };
        Assert.Same(Sql, ParameterBinder.Bind(_sqlite, Sql, args));
        Assert.Equal(["@ID", ":name", "$Note"], Names(_sqlite));
        Assert.Equal(1, Parameter(_sqlite, "@ID").Value);
        Assert.Equal("n", Parameter(_sqlite, ":name").Value);
        Assert.Equal(DBNull.Value, Parameter(_sqlite, "$Note").Value);

        ParameterBinder.Bind(_foreign, Sql, args);
        Assert.Equal(["ID", "name", "Note"], Names(_foreign));
    }

    [Fact]
    public void A_question_mark_prefix_is_never_added_to_the_name()
    {
        ParameterBinder.Bind(_sqlite, "select ?id", new { Id = 1 });
        Assert.Equal(["id"], Names(_sqlite));
    }

    [Fact]
    public void Fields_bind_and_indexers_and_members_without_a_public_getter_do_not()
    {
        var args = new Mixed { Field = 2, Visible = 3 };
        args.Hidden = 4;
        ParameterBinder.Bind(_sqlite, "select @field, @visible, @hidden, @item", args);
        Assert.Equal(["@visible", "@field"], Names(_sqlite)); // properties first, then fields
        Assert.Equal(2, Parameter(_sqlite, "@field").Value);
        Assert.Equal(3, Parameter(_sqlite, "@visible").Value);
    }

    public sealed class Mixed
    {
#pragma warning disable CA1051 // a public field is what is being bound
        public int Field;
#pragma warning restore CA1051

        public int Visible { get; set; }

        public int Hidden { private get; set; }

        public int this[int index] => index + Hidden;
    }

    public sealed class Empty
    {
        public static int Shared => 1;
    }

    [Fact]
    public void A_type_without_public_instance_members_is_refused_naming_it()
    {
        var error = Assert.Throws<ArgumentException>(() => ParameterBinder.Bind(_sqlite, "select 1", new Empty()));
        Assert.Equal("args", error.ParamName);
        Assert.StartsWith(
            $"Arguments of type {typeof(Empty)} have no public properties or fields to send as parameters. Pass an anonymous object, " +
            "a class or record, a dictionary, or DbParameter instances.", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Alternating_argument_types_each_bind_their_own_members()
    {
        for (int i = 0; i < 3; i++)
        {
            using var first = new SqliteCommand();
            ParameterBinder.Bind(first, "select @a, @b", new { A = i, B = "x" });
            Assert.Equal(["@a", "@b"], Names(first));
            Assert.Equal(i, Parameter(first, "@a").Value);

            using var second = new SqliteCommand();
            ParameterBinder.Bind(second, "select @a, @b", new Mixed { Field = 1, Visible = i });
            Assert.Empty(second.Parameters);

            using var third = new SqliteCommand();
            ParameterBinder.Bind(third, "select @visible", new Mixed { Visible = i });
            Assert.Equal(i, Parameter(third, "@visible").Value);
        }
    }

    [Fact]
    public void The_same_type_binds_the_spelling_of_each_text_on_each_kind_of_command()
    {
        ParameterBinder.Bind(_sqlite, "select @Value", new { Value = 1 });
        ParameterBinder.Bind(_foreign, "select @Value", new { Value = 1 });
        using var again = new SqliteCommand();
        ParameterBinder.Bind(again, "select :value", new { Value = 1 });
        Assert.Equal(["@Value"], Names(_sqlite));
        Assert.Equal(["Value"], Names(_foreign));
        Assert.Equal([":value"], Names(again));
    }

    [Fact]
    public void A_prebuilt_list_is_added_as_named_without_looking_at_the_sql()
    {
        var list = new ParameterList(2) { new("@p0", 1), new("@p1", null) };
        Assert.Equal("select 1", ParameterBinder.Bind(_sqlite, "select 1", list));
        Assert.Equal(["@p0", "@p1"], Names(_sqlite));
        Assert.Equal(DBNull.Value, Parameter(_sqlite, "@p1").Value);
    }

    [Fact]
    public void Explicit_parameters_are_added_as_they_are()
    {
        var single = new SqliteParameter("@x", 1);
        ParameterBinder.Bind(_sqlite, "select @x", single);
        Assert.Same(single, _sqlite.Parameters[0]);

        using var many = new SqliteCommand();
        SqliteParameter[] parameters = [new("@a", 1), new("@b", 2)];
        Assert.Equal("select 1", ParameterBinder.Bind(many, "select 1", parameters));
        Assert.Same(parameters[0], many.Parameters[0]);
        Assert.Same(parameters[1], many.Parameters[1]);
    }

    [Fact]
    public void Dictionaries_bind_used_keys_by_the_sql_s_spelling_and_expand_lists()
    {
        var pairs = new Dictionary<string, object?> { ["Id"] = 7, ["ids"] = new[] { 1, 2 }, ["unused"] = 3 };
        string sql = ParameterBinder.Bind(_sqlite, "select @id where x in @ids", pairs);
        Assert.Equal("select @id where x in (@ids0, @ids1)", sql);
        Assert.Equal(["id", "ids0", "ids1"], Names(_sqlite));
        Assert.Equal(7, Parameter(_sqlite, "id").Value);

        var table = new Hashtable { ["Name"] = "n", ["list"] = new List<int> { 5 } };
        using var other = new SqliteCommand();
        Assert.Equal("select @name, (@list0)", ParameterBinder.Bind(other, "select @name, @list", table));
        Assert.Equal("n", Parameter(other, "name").Value);
        Assert.Equal(5, Parameter(other, "list0").Value);
    }

    [Fact]
    public void A_dictionary_key_that_is_not_a_string_is_refused_naming_its_type()
    {
        var error = Assert.Throws<ArgumentException>(() => ParameterBinder.Bind(_sqlite, "select 1", new Hashtable { [1] = "x" }));
        Assert.Equal("args", error.ParamName);
        Assert.StartsWith("Parameter dictionaries must have string keys; found a key of type System.Int32.", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Values_are_sent_as_given_enums_as_their_number_and_null_as_DBNull()
    {
        Assert.Equal(DBNull.Value, ParameterBinder.Create(_sqlite, "@n", null).Value);
        DbParameter size = ParameterBinder.Create(_sqlite, "@s", Size.Large);
        Assert.Equal((short)3, size.Value);
        Assert.IsType<short>(size.Value);
        DbParameter text = ParameterBinder.Create(_sqlite, "@t", "x");
        Assert.Equal("@t", text.ParameterName);
        Assert.Equal("x", text.Value);
    }

    [Fact]
    public void Dates_and_times_go_as_they_are_to_providers_that_know_them()
    {
        var day = new DateOnly(2024, 5, 6);
        var time = new TimeOnly(7, 8, 9);
        Assert.Equal(day, ParameterBinder.Create(_sqlite, "@d", day).Value);
        Assert.Equal(time, ParameterBinder.Create(_sqlite, "@t", time).Value);
    }

    [Fact]
    public void Dates_and_times_go_as_a_DateTime_and_a_TimeSpan_to_other_providers()
    {
        DbParameter day = ParameterBinder.Create(_foreign, "d", new DateOnly(2024, 5, 6));
        Assert.Equal(DbType.Date, day.DbType);
        Assert.Equal(new DateTime(2024, 5, 6), day.Value);
        DbParameter time = ParameterBinder.Create(_foreign, "t", new TimeOnly(7, 8, 9));
        Assert.Equal(DbType.Time, time.DbType);
        Assert.Equal(new TimeSpan(7, 8, 9), time.Value);
    }

    [Fact]
    public void A_typed_null_carries_the_db_type_of_its_element_type_when_there_is_one()
    {
        DbParameter typed = ParameterBinder.Create(_foreign, "x", new TypedNull(typeof(long)));
        Assert.Equal("x", typed.ParameterName);
        Assert.Equal(DBNull.Value, typed.Value);
        Assert.Equal(DbType.Int64, typed.DbType);

        DbParameter nullableEnum = ParameterBinder.CreateTypedNull(_foreign, "e", typeof(Size?));
        Assert.Equal(DbType.Int16, nullableEnum.DbType);

        DbType untouched = _foreign.CreateParameter().DbType;
        DbParameter unknown = ParameterBinder.CreateTypedNull(_foreign, "u", typeof(Uri));
        Assert.Equal(untouched, unknown.DbType);
        Assert.Equal(DBNull.Value, unknown.Value);
    }

    [Theory]
    [InlineData(typeof(bool), DbType.Boolean)]
    [InlineData(typeof(byte), DbType.Byte)]
    [InlineData(typeof(sbyte), DbType.SByte)]
    [InlineData(typeof(short), DbType.Int16)]
    [InlineData(typeof(ushort), DbType.UInt16)]
    [InlineData(typeof(int), DbType.Int32)]
    [InlineData(typeof(uint), DbType.UInt32)]
    [InlineData(typeof(long), DbType.Int64)]
    [InlineData(typeof(ulong), DbType.UInt64)]
    [InlineData(typeof(float), DbType.Single)]
    [InlineData(typeof(double), DbType.Double)]
    [InlineData(typeof(decimal), DbType.Decimal)]
    [InlineData(typeof(string), DbType.String)]
    [InlineData(typeof(char), DbType.StringFixedLength)]
    [InlineData(typeof(Guid), DbType.Guid)]
    [InlineData(typeof(DateTime), DbType.DateTime2)]
    [InlineData(typeof(DateTimeOffset), DbType.DateTimeOffset)]
    [InlineData(typeof(DateOnly), DbType.Date)]
    [InlineData(typeof(TimeOnly), DbType.Time)]
    [InlineData(typeof(TimeSpan), DbType.Time)]
    [InlineData(typeof(byte[]), DbType.Binary)]
    [InlineData(typeof(int?), DbType.Int32)]
    [InlineData(typeof(Size), DbType.Int16)]
    public void Common_types_have_a_db_type(Type type, DbType expected)
    {
        Assert.True(DbTypes.TryGet(type, out DbType dbType));
        Assert.Equal(expected, dbType);
    }

    [Fact]
    public void Other_types_have_none() => Assert.False(DbTypes.TryGet(typeof(Uri), out _));

    [Theory]
    [InlineData("select * from t where id in @ids")]
    [InlineData("select * from t where id in (@ids)")]
    [InlineData("select * from t where id in ( @ids )")]
    [InlineData("select * from t where id in :ids")]
    public void A_list_becomes_one_parameter_per_element_in_parentheses(string sql)
    {
        string expanded = ListExpansion.Expand(_sqlite, sql, "ids", new[] { 4, 5, 6 });
        Assert.Equal("select * from t where id in (@ids0, @ids1, @ids2)", expanded);
        Assert.Equal(["ids0", "ids1", "ids2"], Names(_sqlite));
        Assert.Equal([4, 5, 6], _sqlite.Parameters.Cast<DbParameter>().Select(p => (int)p.Value!));
    }

    [Fact]
    public void A_list_is_named_as_the_sql_spells_it_and_only_whole_names_are_replaced()
    {
        string expanded = ListExpansion.Expand(_sqlite, "select @IDS, @idsx, x@ids, @ids_2 where a in @IDS", "ids", new List<string> { "a" });
        Assert.Equal("select (@IDS0), @idsx, x@ids, @ids_2 where a in (@IDS0)", expanded);
        Assert.Equal(["IDS0"], Names(_sqlite));
        Assert.Equal("a", Parameter(_sqlite, "IDS0").Value);
    }

    [Fact]
    public void Elements_are_sent_like_single_values()
    {
        ListExpansion.Expand(_sqlite, "in @s", "s", new Size?[] { Size.Small, null });
        Assert.Equal((short)1, Parameter(_sqlite, "s0").Value);
        Assert.Equal(DBNull.Value, Parameter(_sqlite, "s1").Value);
    }

    [Fact]
    public void An_empty_list_selects_a_typed_null_from_no_row()
    {
        string expanded = ListExpansion.Expand(_foreign, "select 1 where x not in @ids", "ids", Array.Empty<long>());
        Assert.Equal("select 1 where x not in (SELECT @ids WHERE 1 = 0)", expanded);
        DbParameter typed = Assert.Single(_foreign.Parameters.Cast<DbParameter>());
        Assert.Equal("ids", typed.ParameterName);
        Assert.Equal(DBNull.Value, typed.Value);
        Assert.Equal(DbType.Int64, typed.DbType);
    }

    [Fact]
    public void A_list_with_no_place_in_the_sql_is_refused_with_how_to_write_it()
    {
        var error = Assert.Throws<ArgumentException>(() => ListExpansion.Expand(_sqlite, "select @idsx", "ids", new[] { 1 }));
        Assert.Equal("args", error.ParamName);
        Assert.StartsWith("Parameter 'ids' is a list, but the SQL has no '@ids' to expand it into. Write 'IN @ids' or 'IN (@ids)'.", error.Message, StringComparison.Ordinal);
        Assert.Empty(_sqlite.Parameters);
    }

    [Fact]
    public void Lists_are_enumerables_other_than_text_and_binary()
    {
        Assert.True(ListExpansion.IsList(new[] { 1 }));
        Assert.True(ListExpansion.IsList(new List<string>()));
        Assert.True(ListExpansion.IsList(new ArrayList()));
        Assert.False(ListExpansion.IsList("text"));
        Assert.False(ListExpansion.IsList(new byte[] { 1 }));
        Assert.False(ListExpansion.IsList(new[] { 'a' }));
        Assert.False(ListExpansion.IsList(5));
    }

    [Theory]
    [InlineData(typeof(int[]), typeof(int))]
    [InlineData(typeof(List<string>), typeof(string))]
    [InlineData(typeof(HashSet<Guid>), typeof(Guid))]
    [InlineData(typeof(IEnumerable<long>), typeof(long))]
    [InlineData(typeof(IReadOnlyList<DateTime>), typeof(DateTime))]
    [InlineData(typeof(ArrayList), typeof(object))]
    public void The_element_type_of_a_list(Type listType, Type expected) => Assert.Equal(expected, ListExpansion.ElementType(listType));

    /// <summary>A command of a provider Orseis knows nothing of (its namespace is this test's); never executed.</summary>
    private sealed class ForeignCommand : DbCommand
    {
        private readonly SqliteCommand _inner = new();

        [System.Diagnostics.CodeAnalysis.AllowNull]
        public override string CommandText { get => _inner.CommandText; set => _inner.CommandText = value; }

        public override int CommandTimeout { get; set; }

        public override CommandType CommandType { get; set; }

        public override bool DesignTimeVisible { get; set; }

        public override UpdateRowSource UpdatedRowSource { get; set; }

        protected override DbConnection? DbConnection { get; set; }

        protected override DbParameterCollection DbParameterCollection => _inner.Parameters;

        protected override DbTransaction? DbTransaction { get; set; }

        public override void Cancel() { }

        public override int ExecuteNonQuery() => throw new NotSupportedException();

        public override object? ExecuteScalar() => throw new NotSupportedException();

        public override void Prepare() { }

        protected override DbParameter CreateDbParameter() => _inner.CreateParameter();

        protected override DbDataReader ExecuteDbDataReader(CommandBehavior behavior) => throw new NotSupportedException();

        protected override void Dispose(bool disposing)
        {
            if (disposing)
                _inner.Dispose();
            base.Dispose(disposing);
        }
    }

    [Fact]
    public void A_literal_is_read_in_the_providers_dialect()
    {
        // MySQL reads \' as a quote inside a string: the {=n} below is text in the string, not a literal to write. Read
        // without the dialect (as SQLite would), the string would end at \' and that {=n} be replaced instead of the last.
        const string Sql = @"select 'it\'s {=n}', {=n}";
        using var mysql = new MySqlConnector.MySqlCommand();
        Assert.Equal(@"select 'it\'s {=n}', 5", ParameterBinder.Bind(mysql, Sql, new { n = 5 }));
    }
}
