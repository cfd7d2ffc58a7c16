using System.ComponentModel;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// Dapper's mapping rules on a real server, with each provider's own column types (PostgreSQL's int4, numeric and date;
/// MariaDB's INT, DECIMAL and DATE): value tuples by position, non-public setters, get-only properties and a private
/// constructor, <see cref="ISupportInitialize"/>, <see cref="OrseisOptions.NullKeepsDefault"/> and <c>splitOn: "*"</c>.
/// </summary>
public abstract partial class ServerSuite
{
    public class Guarded : ISupportInitialize
    {
        private Guarded()
        {
        }

        public int Id { get; private set; }

        public string Name { get; protected set; } = "";

        public decimal Amount { get; }

        public int Maybe { get; set; } = -1;

        public string Steps { get; private set; } = "";

        public void BeginInit() => Steps += "begin ";

        public void EndInit() => Steps += $"end({Id},{Name},{Amount})";
    }

    protected async Task Tuples_members_nulls_and_splits_map_as_Dapper_users_expect()
    {
        Seed();
        Database perCall = Open(ExecutionMode.OpenPerCall);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        await using Session session = await perCall.OpenSessionAsync();
        string items = Text($"select id, name, amount, created from {Table} where id <= 2 order by id");
        foreach (SqlRunner runner in new SqlRunner[] { perCall, reuse, session })
        {
            // Value tuples: by position, names ignored, the rest of the row not read, TRest nested, nullable.
            List<(int Id, string Name, decimal Amount, DateTime Created)> rows = await runner.QueryAsync<(int, string, decimal, DateTime)>(items);
            Assert.Equal([(1, "item 1", 1.25m, new DateTime(2024, 1, 1)), (2, "item 2", 2.50m, new DateTime(2024, 1, 2))], rows);
            Assert.Equal((3, "item 3"), runner.QuerySingle<(int, string)>(Text($"select id as name, name as id, amount from {Table} where id = 3")));
            var nine = runner.QuerySingle<(int, int, int, int, int, int, int, decimal, string)>(
                Text($"select id, id, id, id, id, id, id, amount, name from {Table} where id = 4"));
            Assert.Equal((4, 4, 4, 4, 4, 4, 4, 5.00m, "item 4"), nine);
            Assert.Null(runner.QuerySingleOrDefault<(int, string)?>(Text($"select id, name from {Table} where id = 0")));
            var tooFew = Assert.Throws<MappingException>(() => runner.Query<(int, string, decimal)>(Text($"select id, name from {Table}")));
            Assert.Contains("has 3 elements, but the result has only 2 column(s)", tooFew.Message, StringComparison.Ordinal);

            // Dapper's members: private and protected setters, a get-only auto-property, a private constructor, ISupportInitialize.
            Guarded guarded = runner.QuerySingle<Guarded>(Text($"select id, name, amount from {Table} where id = 5"));
            Assert.Equal((5, "item 5", 6.25m, "begin end(5,item 5,6.25)"), (guarded.Id, guarded.Name, guarded.Amount, guarded.Steps));

            // splitOn "*": one column for each type after the first.
            Assert.Equal(["1/item 1/1.25/2024-01-01", "2/item 2/2.50/2024-01-02"], runner.Query<Key, string, decimal, DateTime, string>(
                items, (key, name, amount, created) => $"{key.Id}/{name}/{amount:0.00}/{created:yyyy-MM-dd}", splitOn: "*"));
        }

        // NULL into an int member: an error by default, the member's own value with NullKeepsDefault.
        string nullable = Text($"select id, name, amount, nullif(id, 2) as maybe from {Table} where id <= 2 order by id");
        var error = Assert.Throws<MappingException>(() => perCall.Query<Guarded>(nullable));
        Assert.Equal("Guarded.Maybe", error.Member);
        Database lenient = Open(ExecutionMode.OpenPerCall, configure: o => o.NullKeepsDefault = true);
        List<Guarded> kept = await lenient.QueryAsync<Guarded>(nullable);
        Assert.Equal([1, -1], kept.Select(g => g.Maybe));
        Assert.Equal(0, lenient.Scalar<int>(Text($"select nullif(id, 1) from {Table} where id = 1")));
        Assert.Equal((1, 0), lenient.QuerySingle<(int, int)>(Text($"select id, nullif(id, 1) from {Table} where id = 1")));
    }
}
