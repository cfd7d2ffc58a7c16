using Microsoft.Data.Sqlite;
using Orseis.Mapping;

namespace Orseis.Tests.Mapping;

/// <summary>
/// <see cref="Layout"/>, the key of the mapper cache: equal exactly when reader type, names and types are, and its
/// quick checks against a row refuse any difference in reader type, count, type or name.
/// </summary>
public sealed class LayoutTests : IDisposable
{
    private readonly SqliteConnection _connection = new("Data Source=:memory:");
    private readonly List<IDisposable> _open = [];

    public LayoutTests() => _connection.Open();

    public void Dispose()
    {
        foreach (IDisposable open in _open)
            open.Dispose();
        _connection.Dispose();
    }

    private SqliteDataReader Row(string sql)
    {
        SqliteCommand command = _connection.CreateCommand();
        command.CommandText = sql;
        SqliteDataReader reader = command.ExecuteReader();
        Assert.True(reader.Read());
        _open.Add(reader);
        _open.Add(command);
        return reader;
    }

    [Fact]
    public void Capture_reads_every_name_and_type_and_the_reader_type()
    {
        Layout layout = Layout.Capture(Row("select 1 as a, 'x' as b, 2.5 as c"), withNames: true);
        Assert.Equal(["a", "b", "c"], layout.Names);
        Assert.Equal([typeof(long), typeof(string), typeof(double)], layout.Types);
        Assert.Equal(typeof(SqliteDataReader), layout.ReaderType);
        Assert.True(layout.ProviderRefusesNull);
    }

    [Fact]
    public void Capture_without_names_takes_the_first_column_only_unnamed()
    {
        Layout layout = Layout.Capture(Row("select 'x' as b, 1 as a"), withNames: false);
        Assert.Equal([""], layout.Names);
        Assert.Equal([typeof(string)], layout.Types);
    }

    [Fact]
    public void Layouts_are_equal_with_equal_hashes_exactly_when_names_and_types_are()
    {
        Layout first = Layout.Capture(Row("select 1 as a, 'x' as b"), withNames: true);
        Layout same = Layout.Capture(Row("select 7 as a, 'y' as b"), withNames: true);
        Layout otherName = Layout.Capture(Row("select 1 as a, 'x' as c"), withNames: true);
        Layout otherCase = Layout.Capture(Row("select 1 as A, 'x' as b"), withNames: true);
        Layout otherType = Layout.Capture(Row("select 1 as a, 2 as b"), withNames: true);
        Layout shorter = Layout.Capture(Row("select 1 as a"), withNames: true);

        Assert.True(first.Equals(same));
        Assert.True(first.Equals((object)same));
        Assert.Equal(first.GetHashCode(), same.GetHashCode());
        Assert.False(first.Equals(otherName));
        Assert.False(first.Equals(otherCase));
        Assert.False(first.Equals(otherType));
        Assert.False(first.Equals(shorter));
        Assert.False(first.Equals(null));
        Assert.False(first.Equals((object)"a"));
        Assert.NotEqual(first.GetHashCode(), otherType.GetHashCode());
        Assert.NotEqual(first.GetHashCode(), otherName.GetHashCode());

        var set = new HashSet<Layout> { first, same, otherName, otherType };
        Assert.Equal(3, set.Count);
    }

    [Fact]
    public void ReadTypes_reads_the_current_row_into_a_reused_buffer_of_at_least_the_count()
    {
        Type[] two = Layout.ReadTypes(Row("select 1, 'x'"), 2);
        Assert.True(two.Length >= 2);
        Assert.Equal(typeof(long), two[0]);
        Assert.Equal(typeof(string), two[1]);

        Type[] again = Layout.ReadTypes(Row("select 'x', 1.5"), 2);
        Assert.Same(two, again);
        Assert.Equal(typeof(string), again[0]);
        Assert.Equal(typeof(double), again[1]);

        string wide = "select " + string.Join(", ", Enumerable.Range(0, 40).Select(i => i.ToString(System.Globalization.CultureInfo.InvariantCulture)));
        Type[] forty = Layout.ReadTypes(Row(wide), 40);
        Assert.True(forty.Length >= 40);
        Assert.All(forty.Take(40), t => Assert.Equal(typeof(long), t));
    }

    [Fact]
    public void MatchesTypes_needs_the_same_reader_type_count_and_each_type()
    {
        Layout layout = Layout.Capture(Row("select 1 as a, 'x' as b"), withNames: true);
        Type reader = typeof(SqliteDataReader);

        Assert.True(layout.MatchesTypes(reader, [typeof(long), typeof(string)], 2));
        Assert.True(layout.MatchesTypes(reader, [typeof(long), typeof(string), typeof(int)], 2)); // a longer buffer
        Assert.False(layout.MatchesTypes(typeof(System.Data.DataTableReader), [typeof(long), typeof(string)], 2));
        Assert.False(layout.MatchesTypes(reader, [typeof(long), typeof(string), typeof(int)], 3));
        Assert.False(layout.MatchesTypes(reader, [typeof(long)], 1));
        Assert.False(layout.MatchesTypes(reader, [typeof(long)], 2)); // buffer shorter than the count
        Assert.False(layout.MatchesTypes(reader, [typeof(string), typeof(string)], 2));
        Assert.False(layout.MatchesTypes(reader, [typeof(long), typeof(long)], 2));
    }

    [Fact]
    public void MatchesNames_compares_every_name_ordinally()
    {
        Layout layout = Layout.Capture(Row("select 1 as a, 'x' as b"), withNames: true);
        Assert.True(layout.MatchesNames(Row("select 2 as a, 'y' as b")));
        Assert.False(layout.MatchesNames(Row("select 2 as z, 'y' as b")));
        Assert.False(layout.MatchesNames(Row("select 2 as a, 'y' as B")));
        Assert.False(layout.MatchesNames(Row("select 2 as a, 'y' as c")));
    }
}
