using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>Multi-mapping to 5, 6 and 7 types (as Dapper has), in every mode, sync, async, interpolated and on a grid.</summary>
public sealed class WideMultiMappingTests
{
    public static TheoryData<RunnerKind> Kinds => SeededDatabase.AllKinds;

    public sealed record Part(long Id, string Name);

    private const string Seven =
        "select 1 as id, 'a' as name, 2 as id, 'b' as name, 3 as id, 'c' as name, 4 as id, 'd' as name, " +
        "5 as id, 'e' as name, null as id, 'f' as name, 7 as id, 'g' as name";

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Five_six_and_seven_types_split_at_each_id_and_a_null_split_column_gives_null(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        SqlRunner r = db.Runner;
        static string Names(params Part?[] parts) => string.Concat(parts.Select(p => p?.Name ?? "-"));
        const string Five = "select 1 as id, 'a' as name, 2 as id, 'b' as name, 3 as id, 'c' as name, 4 as id, 'd' as name, 5 as id, 'e' as name";
        const string Six = "select 1 as id, 'a' as name, 2 as id, 'b' as name, 3 as id, 'c' as name, 4 as id, 'd' as name, 5 as id, 'e' as name, 6 as id, 'f' as name";

        Assert.Equal(["abcde"], r.Query<Part, Part, Part, Part, Part, string>(Five, (a, b, c, d, e) => Names(a, b, c, d, e)));
        Assert.Equal(["abcde"], await r.QueryAsync<Part, Part, Part, Part, Part, string>(Five, (a, b, c, d, e) => Names(a, b, c, d, e)));
        Assert.Equal(["abcdef"], r.Query<Part, Part, Part, Part, Part, Part, string>(Six, (a, b, c, d, e, f) => Names(a, b, c, d, e, f)));
        Assert.Equal(["abcdef"], await r.QueryAsync<Part, Part, Part, Part, Part, Part, string>(Six, (a, b, c, d, e, f) => Names(a, b, c, d, e, f)));
        Assert.Equal(["abcde-g"], r.Query<Part, Part, Part, Part, Part, Part?, Part, string>(Seven, (a, b, c, d, e, f, g) => Names(a, b, c, d, e, f, g)));
        Assert.Equal(["abcde-g"], await r.QueryAsync<Part, Part, Part, Part, Part, Part?, Part, string>(
            Seven, (a, b, c, d, e, f, g) => Names(a, b, c, d, e, f, g)));

        string x = "x";
        Assert.Equal(["xbcde"], r.Query<Part, Part, Part, Part, Part, string>(
            $"select 1 as id, {x} as name, 2 as id, 'b' as name, 3 as id, 'c' as name, 4 as id, 'd' as name, 5 as id, 'e' as name",
            (a, b, c, d, e) => Names(a, b, c, d, e)));
        Assert.Equal([7L], await r.QueryAsync<long, long, long, long, long, long, long, long>(
            $"select {1} as a, 1 as b, 1 as c, 1 as d, 1 as e, 1 as f, 1 as g", (a, b, c, d, e, f, g) => a + b + c + d + e + f + g, splitOn: "b,c,d,e,f,g"));
        Assert.Equal([6L], r.Query<long, long, long, long, long, long, long>(
            $"select {1} as a, 1 as b, 1 as c, 1 as d, 1 as e, 1 as f", (a, b, c, d, e, f) => a + b + c + d + e + f, splitOn: "b,c,d,e,f"));

        await using GridReader grid = await r.QueryMultipleAsync(Five + "; " + Six + "; " + Seven + "; " + Five + "; " + Six + "; " + Seven);
        Assert.Equal(["abcde"], grid.Read<Part, Part, Part, Part, Part, string>((a, b, c, d, e) => Names(a, b, c, d, e)));
        Assert.Equal(["abcdef"], grid.Read<Part, Part, Part, Part, Part, Part, string>((a, b, c, d, e, f) => Names(a, b, c, d, e, f)));
        Assert.Equal(["abcde-g"], grid.Read<Part, Part, Part, Part, Part, Part, Part, string>((a, b, c, d, e, f, g) => Names(a, b, c, d, e, f, g)));
        Assert.Equal(["abcde"], await grid.ReadAsync<Part, Part, Part, Part, Part, string>((a, b, c, d, e) => Names(a, b, c, d, e)));
        Assert.Equal(["abcdef"], await grid.ReadAsync<Part, Part, Part, Part, Part, Part, string>((a, b, c, d, e, f) => Names(a, b, c, d, e, f)));
        Assert.Equal(["abcde-g"], await grid.ReadAsync<Part, Part, Part, Part, Part, Part, Part, string>(
            (a, b, c, d, e, f, g) => Names(a, b, c, d, e, f, g)));
    }

    [Fact]
    public void A_missing_split_column_of_the_seventh_type_is_named()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        var error = Assert.Throws<MappingException>(() => db.Runner.Query<Part, Part, Part, Part, Part, Part, Part, string>(
            Seven, (a, b, c, d, e, f, g) => "", splitOn: "id,id,id,id,id,pet_id"));
        Assert.Equal("pet_id", error.Column);
        Assert.Equal("Part", error.Member);
    }
}
