using Microsoft.Data.Sqlite;
using Orseis.Mapping;

namespace Orseis.Tests.Mapping;

/// <summary>
/// <see cref="MappingErrors"/> on a real SQLite reader: each kind of failure gets its own reason, a NULL is told apart
/// from a bad value, the provider's exception is kept only when it says something, and a reader that can no longer
/// describe its columns still yields a message.
/// </summary>
public sealed class MappingErrorsTests : IDisposable
{
    private readonly SqliteConnection _connection = new("Data Source=:memory:");
    private readonly List<SqliteCommand> _commands = [];

    public MappingErrorsTests()
    {
        _connection.Open();
        using SqliteCommand create = _connection.CreateCommand();
        create.CommandText = "create table people (age integer); insert into people values (null)";
        create.ExecuteNonQuery();
    }

    public void Dispose()
    {
        foreach (SqliteCommand command in _commands)
            command.Dispose(); // disposing a command closes its reader, so only once the test is done
        _connection.Dispose();
    }

    private SqliteDataReader Row(string sql)
    {
        SqliteCommand command = _connection.CreateCommand();
        _commands.Add(command);
        command.CommandText = sql;
        SqliteDataReader reader = command.ExecuteReader();
        Assert.True(reader.Read());
        return reader;
    }

    [Fact]
    public void A_null_column_names_the_column_its_database_type_the_member_and_how_to_fix_it()
    {
        using SqliteDataReader reader = Row("select age from people");
        var error = Assert.IsType<MappingException>(MappingErrors.NullColumn(reader, 0, "Person.Age", typeof(int)));
        Assert.Equal(
            "Column 'age' (database type INTEGER) is NULL in a row, but member 'Person.Age' (Int32) cannot hold NULL. " +
            "Make it Int32? (nullable) or COALESCE the column in SQL.",
            error.Message);
        Assert.Equal("age", error.Column);
        Assert.Equal("Person.Age", error.Member);
        Assert.Null(error.InnerException);
    }

    [Fact]
    public void A_null_scalar_names_the_requested_type()
    {
        using SqliteDataReader reader = Row("select null as total");
        var error = Assert.IsType<MappingException>(MappingErrors.NullColumn(reader, 0, null, typeof(long)));
        Assert.Contains("but the requested type Int64 cannot hold NULL", error.Message, StringComparison.Ordinal);
        Assert.Null(error.Member);
    }

    [Fact]
    public void A_mapping_exception_passes_through_unchanged()
    {
        using SqliteDataReader reader = Row("select 1 as a");
        var original = new MappingException("inner", "a", "T.A");
        Assert.Same(original, MappingErrors.Column(original, reader, 0, "T.A", typeof(int)));
    }

    [Fact]
    public void A_getter_that_failed_on_a_null_is_reported_as_the_null()
    {
        using SqliteDataReader reader = Row("select 1 as a, null as b");
        var error = Assert.IsType<MappingException>(MappingErrors.Column(new InvalidOperationException("provider text"), reader, 1, "T.B", typeof(int)));
        Assert.StartsWith("Column 'b' (database type ", error.Message, StringComparison.Ordinal);
        Assert.Contains("is NULL in a row, but member 'T.B' (Int32) cannot hold NULL.", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void An_overflow_says_the_value_is_out_of_range_and_keeps_the_provider_exception()
    {
        using SqliteDataReader reader = Row("select 300 as level");
        var overflow = new OverflowException();
        var error = Assert.IsType<MappingException>(MappingErrors.Column(overflow, reader, 0, "T.Level", typeof(byte)));
        Assert.Equal(
            "Cannot map column 'level' (database type INTEGER, read as Int64) to member 'T.Level' (Byte): the value is out of the member type's range.",
            error.Message);
        Assert.Same(overflow, error.InnerException);
        Assert.Equal("level", error.Column);
        Assert.Equal("T.Level", error.Member);
    }

    [Fact]
    public void An_invalid_cast_gives_its_own_message_without_the_final_period_and_is_kept()
    {
        using SqliteDataReader reader = Row("select 'x' as flag");
        var cast = new InvalidCastException("Only 0 and 1 convert to Boolean.");
        var error = Assert.IsType<MappingException>(MappingErrors.Column(cast, reader, 0, null, typeof(bool?)));
        Assert.Equal(
            "Cannot map column 'flag' (database type TEXT, read as String) to the requested type Nullable<Boolean>: Only 0 and 1 convert to Boolean.",
            error.Message);
        Assert.Same(cast, error.InnerException);
    }

    [Fact]
    public void A_format_error_is_described_and_not_kept()
    {
        using SqliteDataReader reader = Row("select 'x' as amount");
        var error = Assert.IsType<MappingException>(MappingErrors.Column(new FormatException("value x"), reader, 0, "T.Amount", typeof(decimal)));
        Assert.EndsWith(": the provider could not parse the value as the member type.", error.Message, StringComparison.Ordinal);
        Assert.Null(error.InnerException);
    }

    [Fact]
    public void Any_other_error_is_named_by_its_type_and_not_kept()
    {
        using SqliteDataReader reader = Row("select 'x' as amount");
        var error = Assert.IsType<MappingException>(MappingErrors.Column(new NotSupportedException("value x"), reader, 0, "T.Amount", typeof(decimal)));
        Assert.EndsWith(": NotSupportedException while reading the value.", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("value x", error.Message, StringComparison.Ordinal);
        Assert.Null(error.InnerException);
    }

    [Fact]
    public void A_reader_that_cannot_describe_the_column_any_more_still_gives_a_message()
    {
        SqliteDataReader reader = Row("select 1 as a");
        reader.Close(); // every call on a closed reader throws
        var error = Assert.IsType<MappingException>(MappingErrors.Column(new OverflowException(), reader, 3, "T.A", typeof(int)));
        Assert.Equal(
            "Cannot map column '#3' (database type unknown, read as unknown) to member 'T.A' (Int32): the value is out of the member type's range.",
            error.Message);
        Assert.Equal("#3", error.Column);

        var nullError = Assert.IsType<MappingException>(MappingErrors.NullColumn(reader, 2, "T.A", typeof(int)));
        Assert.StartsWith("Column '#2' (database type unknown) is NULL", nullError.Message, StringComparison.Ordinal);
    }
}
