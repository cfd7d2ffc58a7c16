using Orseis.Diagnostics;

namespace Orseis.Tests.Diagnostics;

/// <summary>
/// The table of a single-table statement, read for <c>db.query.summary</c>; a statement that may touch several tables,
/// or one the reader is unsure of, names none.
/// </summary>
public sealed class SqlCollectionTests
{
    [Theory]
    [InlineData("select name from items where id = @id", "items")]
    [InlineData("  -- comment from x\n SELECT * FROM shop.orders o WHERE o.id = 1", "shop.orders")]
    [InlineData("select count(*) from \"Order Lines\" as l", "\"Order Lines\"")]
    [InlineData("select * from `shop`.`orders` order by id limit 5", "`shop`.`orders`")]
    [InlineData("select * from [dbo].[Orders] where name = 'from elsewhere join x'", "[dbo].[Orders]")]
    [InlineData("insert into items (id, name) values (@id, @name)", "items")]
    [InlineData("INSERT INTO items(id) VALUES (1) ON CONFLICT (id) DO UPDATE SET id = 2 RETURNING id", "items")]
    [InlineData("insert into items (id) values (1) on duplicate key update id = 2", "items")]
    [InlineData("replace into items (id) values (1)", "items")]
    [InlineData("update items set name = @name where id = @id", "items")]
    [InlineData("update public.items as i set name = 'x'", "public.items")]
    [InlineData("delete from items where id = any(@ids)", "items")]
    [InlineData("select * from items for update", "items")]
    [InlineData("select id from items;", "items")]
    public void Single_table_statements_name_their_table(string sql, string table)
    {
        int operation = SqlOperation.Find(sql);
        Assert.True(operation >= 0, sql);
        Assert.Equal(table, SqlCollection.Find(sql, SqlOperation.Names[operation]).ToString());
    }

    [Theory]
    [InlineData("select 1")]
    [InlineData("select * from a join b on a.id = b.id")]
    [InlineData("select * from a inner join b using (id)")]
    [InlineData("select * from a, b")]
    [InlineData("select * from a x, b y")]
    [InlineData("select * from (select * from a) t")]
    [InlineData("select * from a where id in (select id from b)")]
    [InlineData("select id from a union select id from b")]
    [InlineData("insert into a select * from b")]
    [InlineData("update a set x = 1 from b where a.id = b.id")]
    [InlineData("update a, b set a.x = b.x")]
    [InlineData("delete from a using b where a.id = b.id")]
    [InlineData("select * from only a")]
    [InlineData("select * from @table")]
    [InlineData("create table a (id int)")]
    [InlineData("select extract(year from d) from a")]
    public void Statements_that_may_touch_several_tables_or_are_unclear_name_none(string sql)
    {
        int operation = SqlOperation.Find(sql);
        string name = operation >= 0 ? SqlOperation.Names[operation] : "SELECT";
        Assert.True(SqlCollection.Find(sql, name).IsEmpty, sql);
    }

    [Fact]
    public void A_name_longer_than_128_characters_is_left_out()
    {
        string table = new('t', 129);
        Assert.True(SqlCollection.Find($"select * from {table}", "SELECT").IsEmpty);
        Assert.Equal(128, SqlCollection.Find($"select * from {table[..128]}", "SELECT").Length);
    }
}
