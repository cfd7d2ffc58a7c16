using System.Collections;
using System.Data.Common;
using Microsoft.Data.Sqlite;

namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="ArgumentSequence"/>: which arguments are a sequence run once per item (execute-many) and which are one set
/// of arguments, even though they can be enumerated too.
/// </summary>
public sealed class ArgumentSequenceTests
{
    public static TheoryData<object> OneSetOfArguments => new()
    {
        "a string is one value, not a sequence of chars",
        new byte[] { 1, 2, 3 },
        new SqliteParameter("id", 1),
        new List<DbParameter> { new SqliteParameter("id", 1), new SqliteParameter("name", "a") },
        new List<SqliteParameter> { new("id", 1) },
        new Hashtable { ["id"] = 1 },
        new Dictionary<string, int> { ["id"] = 1 },
        new Dictionary<string, object?> { ["id"] = 1 },
        new List<KeyValuePair<string, object?>> { new("id", 1), new("name", "a") },
        new { id = 1 },
    };

    [Theory]
    [MemberData(nameof(OneSetOfArguments))]
    public void One_set_of_arguments_is_not_a_sequence(object args) => Assert.Null(ArgumentSequence.Items(args));

    [Fact]
    public void No_arguments_are_not_a_sequence() => Assert.Null(ArgumentSequence.Items(null));

    [Fact]
    public void A_sequence_of_objects_gives_its_items_in_order()
    {
        object first = new { id = 1 }, second = new Dictionary<string, object?> { ["id"] = 2 }, third = new { id = 3 };
        Assert.Equal([first, second, third], ArgumentSequence.Items(new List<object> { first, second, third }));
        Assert.Equal([first], ArgumentSequence.Items(Enumerable.Repeat(first, 1)));
        Assert.Empty(ArgumentSequence.Items(Array.Empty<object>())!);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(2)]
    public void A_null_item_is_refused_naming_its_index(int index)
    {
        var items = new object?[] { new { id = 1 }, new { id = 2 }, new { id = 3 } };
        items[index] = null;
        var error = Assert.Throws<ArgumentException>(() => ArgumentSequence.Items(items));
        Assert.Equal("args", error.ParamName);
        Assert.StartsWith(
            $"Item {index} of the argument sequence is null; each item must be an object holding one statement's arguments.",
            error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_sequence_of_values_is_refused_saying_how_to_pass_a_list()
    {
        var error = Assert.Throws<ArgumentException>(() => ArgumentSequence.Items(new List<long> { 1, 2 }));
        Assert.Equal("args", error.ParamName);
        Assert.StartsWith(
            "The arguments are a sequence of Int64 values. A sequence runs the statement once per item and each item must be an object " +
            "holding that run's arguments (new[] { new { id = 1 }, new { id = 2 } }). To pass a list for 'in @ids', wrap it in an object: " +
            "new { ids }.", error.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>(() => ArgumentSequence.Items(new[] { "a", "b" }));
    }
}
