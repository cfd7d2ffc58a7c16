namespace Orseis.IntegrationTests.Suites;

/// <summary>Rows without a static type on the server: dynamic rows, a run-time row type, multi-mapping by Type[] and to 5 types.</summary>
public abstract partial class ServerSuite
{
    public sealed class Priced
    {
        public int Id { get; set; }

        public string Name { get; set; } = "";

        public decimal Amount { get; set; }
    }

    public readonly record struct Named(int Id, string Name);

    protected async Task Rows_without_a_static_type_read_the_same_in_every_mode()
    {
        Seed();
        Database perCall = Open(ExecutionMode.OpenPerCall);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        using Session session = await perCall.OpenSessionAsync();
        string two = Text($"select id, name, amount, created, null as nothing from {Table} where id in (3, 4) order by id");
        foreach (SqlRunner r in new SqlRunner[] { perCall, reuse, session })
        {
            // Dynamic rows hold the provider's own values, NULL as null; names match ignoring case (PostgreSQL folds
            // unquoted aliases to lower case: "UserId" comes back as "userid").
            List<dynamic> rows = await r.QueryAsync<dynamic>(two);
            Assert.Equal(2, rows.Count);
            Assert.Equal(3, rows[0].id);
            Assert.Equal("item 3", rows[0].NAME);
            Assert.Equal(3.75m, rows[0]["amount"]);
            // A DATE is the provider's own type (DateTime, or DateOnly from Npgsql 10); Get<T> converts it.
            Assert.Equal("2024-01-04", (string)rows[1].created.ToString("yyyy-MM-dd", System.Globalization.CultureInfo.InvariantCulture));
            Assert.Equal(new DateTime(2024, 1, 4), ((DynamicRow)rows[1]).Get<DateTime>("created"));
            Assert.Null(rows[1].nothing);
            Assert.Equal(["id", "name", "amount", "created", "nothing"], ((IDictionary<string, object?>)rows[1]).Keys);
            Assert.Equal(7, r.QuerySingle(Text($"select id as UserId from {Table} where id = @id"), new { id = 7 }).UserId);
            Assert.Equal(7, (await r.QueryFirstAsync(Text($"select id from {Table} where id = @id"), new { id = 7 })).id);
            string word = "it's";
            Assert.Equal("it's", r.QuerySingle<dynamic>($"select {word} as word").word);
            Assert.Equal("it's", r.QuerySingle($"select {word} as word").word);
            Assert.Equal([3, 4], r.Stream(two).Select(row => (int)row.id));
            var streamed = new List<int>();
            await foreach (dynamic row in r.StreamAsync<dynamic>(two))
                streamed.Add(row.id);
            Assert.Equal([3, 4], streamed);
            dynamic duplicated = r.QuerySingle(Text("select 1 as a, 2 as a"));
            Assert.Equal(1, Convert.ToInt32(duplicated.a));
            Assert.Equal(2, Convert.ToInt32(duplicated[1]));
            Assert.Equal(1.25m, ((DynamicRow)r.QuerySingle(Text($"select amount from {Table} where id = 1"))).Get<decimal>("amount"));

            // A run-time row type: the same mapping as Query<T>.
            Assert.Equal(["item 3", "item 4"], r.Query(typeof(Priced), two).Cast<Priced>().Select(p => p.Name));
            Assert.Equal(new Named(5, "item 5"), await r.QuerySingleAsync(typeof(Named), Text($"select id, name from {Table} where id = 5")));
            Assert.Null(r.QueryFirstOrDefault(typeof(Named), Text($"select id, name from {Table} where id = 99")));

            // Multi-mapping by Type[] (a dynamic part among them) and to five types.
            string pairs = Text($"select a.id, a.name, b.id, b.name from {Table} a left join {Table} b on b.id = a.id + 18 where a.id in (1, 2, 3) order by a.id");
            List<string> joined = r.Query(pairs, [typeof(Priced), typeof(object)], p => ((Priced)p[0]!).Id + ":" + (p[1] as DynamicRow)?["name"]);
            Assert.Equal(["1:item 19", "2:item 20", "3:"], joined);
            string five = Text($"select a.id, a.name, b.id, b.name, c.id, c.name, d.id, d.name, e.id, e.name from {Table} a, {Table} b, {Table} c, {Table} d, {Table} e " +
                               "where a.id = 1 and b.id = 2 and c.id = 3 and d.id = 4 and e.id = 5");
            Assert.Equal([15], await r.QueryAsync<Named, Named, Named, Named, Named, int>(five, (a, b, c, d, e) => a.Id + b.Id + c.Id + d.Id + e.Id));

            await using GridReader grid = await r.QueryMultipleAsync(two + "; " + two + "; " + two + "; " + pairs);
            Assert.Equal(2, grid.Read().Count);
            Assert.Equal([3, 4], (await grid.ReadAsync<dynamic>()).Select(row => (int)row.id));
            Assert.Equal(2, (await grid.ReadAsync(typeof(Priced))).Count);
            Assert.Equal(3, grid.Read([typeof(Named), typeof(Priced)], p => p).Count);
        }
    }
}
