using System.Data.Common;

namespace Orseis.IntegrationTests.Suites;

// Dapper's parameter-side surface on each server: {=literals}, DbString's shape, unbuffered grids that let go early.
public abstract partial class ServerSuite
{
    public enum Pick
    {
        Second = 2,
    }

    /// <summary>Literals where parameters cannot go (<paramref name="firstTwo"/>: the server's way to take the first two rows,
    /// with <c>{0}</c> for the table and <c>{=take}</c>), in lists, signs, booleans and enums, per item of an execute-many.</summary>
    protected async Task Literals_are_written_into_the_sql_in_every_mode(string firstTwo)
    {
        Seed();
        Database perCall = Open(ExecutionMode.OpenPerCall);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        using Session session = await perCall.OpenSessionAsync();
        string count = $"select count(*) from {Table} where ";
        foreach (SqlRunner runner in new SqlRunner[] { perCall, reuse, session })
        {
            Assert.Equal([1, 2], runner.Query<int>(firstTwo.Replace("{0}", Table, StringComparison.Ordinal), new { take = 2 }));
            Assert.Equal(2, await runner.ScalarAsync<int>(count + "id in {=ids}", new { ids = new[] { 1, 3, 99 } }));
            Assert.Equal(0, runner.Scalar<int>(count + "id in {=ids}", new { ids = Array.Empty<int>() }));
            Assert.Equal(20, runner.Scalar<int>(count + "id not in {=ids}", new { ids = new List<long>() }));
            Assert.Equal(10, runner.Scalar<int>(count + "id > 5-{=n}", new { n = -5 }));
            Assert.Equal(20, runner.Scalar<int>(count + "1 = {=t}", new { t = true }));
            Assert.Equal("item 2", runner.QuerySingle<string>(Text($"select name from {Table} where id = {{=e}} and amount > @min"),
                new { e = Pick.Second, min = 0m }));
        }

        // Each item of a sequence gets its own literal (in batches where the provider has them).
        Assert.Equal(3, await perCall.ExecuteAsync(Text($"update {Table} set name = @name where id = {{=id}}"),
            new[] { new { id = 1, name = "one" }, new { id = 2, name = "two" }, new { id = 3, name = "three" } }));
        Assert.Equal(["one", "two", "three"], perCall.Query<string>(Text($"select name from {Table} where id <= 3 order by id")));

        var text = Assert.Throws<ArgumentException>(() => perCall.Query<int>(count + "name = {=name}", new { name = "x' or '1'='1" }));
        Assert.Contains("The literal {=name} is a String", text.Message, StringComparison.Ordinal);
    }

    /// <summary>DbStringValue's shape on the server: a fixed-length ANSI value compared with a <c>char(4)</c> column, Unicode
    /// text kept, a value too long for its Length refused before sending, one too long for the column refused by the server.</summary>
    protected void A_string_parameters_shape_reaches_the_server()
    {
        Database db = Open(ExecutionMode.OpenPerCall);
        string table = Table + "_s";
        db.Execute(Text($"create table {table} (code char(4) not null, name varchar(20) not null)"));
        try
        {
            string insert = Text($"insert into {table} (code, name) values (@code, @name)");
            db.Execute(insert, new { code = new DbStringValue("AB", 4) { IsAnsi = true, IsFixedLength = true },
                name = new DbStringValue("é-ok", 20) });
            db.Execute(insert, new[] { new { code = new DbStringValue("CD") { IsAnsi = true }, name = new DbStringValue("x") } });
            Assert.Equal(1, db.Scalar<int>(Text($"select count(*) from {table} where code = @c"), new { c = new DbStringValue("AB",
                4) { IsAnsi = true, IsFixedLength = true } }));
            Assert.Equal("é-ok", db.QuerySingle<string>(Text($"select name from {table} where code = @c"),
                new { c = new DbStringValue("AB") { IsAnsi = true } }));
            Assert.Equal("AB", db.QuerySingle<string>(Text($"select code from {table} where name = @n"),
                new { n = new DbStringValue("é-ok") }).TrimEnd());

            var tooLong = Assert.Throws<ArgumentException>(() => db.Execute(insert, new { code = new DbStringValue("ABCDE",
                4) { IsAnsi = true }, name = "y" }));
            Assert.Contains("Parameter 'code' is a DbStringValue longer than its Length (4)", tooLong.Message, StringComparison.Ordinal);
            Assert.ThrowsAny<DbException>(() => db.Execute(insert, new { code = new DbStringValue("ABCDEFG") { IsAnsi = true },
                name = "z" }));
            Assert.Equal(2, db.Scalar<int>(Text($"select count(*) from {table}")));
        }
        finally
        {
            db.Execute(Text($"drop table {table}"));
        }
    }

    /// <summary>Unbuffered grid reads, and the grid's connection given back once its last result set is read, before disposal.</summary>
    protected async Task A_grid_reads_unbuffered_and_lets_go_after_its_last_result_set()
    {
        Seed();
        Database perCall = Open(ExecutionMode.OpenPerCall);
        using Session session = await perCall.OpenSessionAsync();
        string sql = Text($"select id from {Table} where id <= @max order by id; select name from {Table} where id = @id");
        foreach (SqlRunner runner in new SqlRunner[] { perCall, session })
        {
            using (GridReader grids = runner.QueryMultiple(sql, new { max = 3, id = 7 }))
            {
                IEnumerable<int> ids = grids.Read<int>(buffered: false);
                Assert.Equal([1, 2, 3], ids);
                Assert.Throws<InvalidOperationException>(() => ids.ToList()); // each result set is read once
                Assert.Equal("item 7", grids.ReadSingle<string>());
            }

            await using (GridReader grids = await runner.QueryMultipleAsync(sql, new { max = 20, id = 7 }))
            {
                IEnumerable<int> ids = grids.Read<int>(false);
                Assert.Throws<InvalidOperationException>(() => grids.Read<string>()); // the unbuffered one comes first
                Assert.Equal([1, 2], ids.Take(2)); // the rest is skipped
                Assert.Equal(runner == perCall ? 2 : 1, perCall.GetPoolReport().InUse); // the session's, and the grid's own
                await foreach (string name in grids.ReadUnbufferedAsync<string>())
                    Assert.Equal("item 7", name);
                Assert.True(grids.IsConsumed);
                Assert.Equal(1, perCall.GetPoolReport().InUse); // the session's only: the grid gave its own back
                Assert.Equal(20L, await runner.ScalarAsync<long>(Text($"select count(*) from {Table}"))); // the session is free again
            }
        }
    }
}
