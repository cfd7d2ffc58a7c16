namespace Orseis.WebStudy;

/// <summary>
/// A repository as web code writes one: an async method per query, making its call on whatever it was given, the
/// <see cref="Database"/> (open per call, or inside the request's scope) or the request's <see cref="Session"/>.
/// </summary>
internal sealed class ItemRepository(SqlRunner runner)
{
    /// <summary>Rows in the study's table, ids 1..Count.</summary>
    public const int Count = 1000;

    /// <summary>The name the table holds for <paramref name="id"/>.</summary>
    public static string NameOf(int id) => "item-" + id.ToString(System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>Creates the table and its rows if they are not there yet (several apps may share the database).</summary>
    public static async Task CreateAsync(Database db)
    {
        await db.ExecuteAsync("create table if not exists webstudy_items (id int primary key, name varchar(40) not null)");
        string rows = string.Join(",", Enumerable.Range(1, Count).Select(id => $"({id}, '{NameOf(id)}')"));
        await db.ExecuteAsync("insert ignore into webstudy_items (id, name) values " + rows);
    }

    /// <summary>One primary-key read.</summary>
    public Task<string?> NameAsync(int id, CancellationToken cancellationToken) =>
        runner.ScalarAsync<string>("select name from webstudy_items where id = @id", new { id }, cancellationToken: cancellationToken);
}
