using Orseis.Mapping;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>Dapper's splitOn rules: <c>"*"</c>, more names than splits, and the error for a split column not found.</summary>
public sealed class SplitOnRulesTests
{
    public sealed record Part(long Id, string Name);

    [Fact]
    public void A_star_gives_each_type_after_the_first_one_column()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        Assert.Equal(
            [(1L, 2L, 3L), (4L, 5L, 6L)],
            db.Runner.Query<long, long, long, (long, long, long)>("select 1, 2, 3 union all select 4, 5, 6", (a, b, c) => (a, b, c), splitOn: "*"));

        // The first type gets every column left of the splits.
        Assert.Equal(
            ["1 person 1 | 21 | 2024-01-01"],
            db.Runner.Query<Part, int, string, string>(
                "select id, name, age, created_at from people where id = 1", (p, age, created) => $"{p.Id} {p.Name} | {age} | {created}", splitOn: "*"));

        Type[] three = [typeof(int), typeof(int), typeof(int)];
        Assert.Equal([0, 2, 3], MultiMapper.Splits(three, ["a", "b", "c", "d"], "*"));
        Assert.Equal([0, 1, 3], MultiMapper.Splits(three, ["a", "b", "c", "d"], "b, *"));
        Assert.Equal([0, 2, 3], MultiMapper.Splits(three, ["a", "b", "c", "d"], "*, d"));
    }

    [Fact]
    public void A_star_with_too_few_columns_says_which_type_has_none()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        var error = Assert.Throws<MappingException>(() =>
            db.Runner.Query<long, long, long, long>("select 1 as a, 2 as b", (a, b, c) => a, splitOn: "*"));
        Assert.Equal(
            "splitOn '*' gives each type after the first one column, but the result has 2 column(s) (a, b) for 3 types: " +
            "Int64 has no column left. Select a column per type.",
            error.Message);
        Assert.Equal("Int64", error.Member);
    }

    [Fact]
    public void More_names_than_splits_use_the_last_ones_as_Dapper_does()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        Assert.Equal(
            ["person 1 / 21"],
            db.Runner.Query<Part, long, string>(
                "select id, name, age from people where id = 1", (p, age) => $"{p.Name} / {age}", splitOn: "unused, other, age"));

        Type[] three = [typeof(int), typeof(int), typeof(int)];
        Assert.Equal([0, 1, 3], MultiMapper.Splits(three, ["x", "b", "y", "c"], "a, b, c"));
        Assert.Throws<MappingException>(() => MultiMapper.Splits(three, ["x", "b", "y", "c"], "b, c, a"));
    }

    [Fact]
    public void A_split_column_not_found_is_named_as_Dapper_words_it()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        var error = Assert.Throws<MappingException>(() =>
            db.Runner.Query<Part, Part, int>("select 1 as id, 2 as barid", (a, b) => 0, splitOn: "DoesntExist"));
        Assert.StartsWith("splitOn column 'DoesntExist' where Part starts was not found", error.Message, StringComparison.Ordinal);
        Assert.Equal(("DoesntExist", "Part"), (error.Column, error.Member));
    }
}
