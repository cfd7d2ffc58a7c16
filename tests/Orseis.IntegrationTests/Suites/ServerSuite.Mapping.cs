using System.Data;
using System.Data.Common;
using System.Text.Json;

namespace Orseis.IntegrationTests.Suites;

/// <summary>Multi-mapping and type handlers on the server, in every mode, sync and async.</summary>
public abstract partial class ServerSuite
{
    public readonly record struct TagCode(string Value);

    public sealed record Meta(string Color, int Weight);

    public sealed class Tag
    {
        public int Id { get; set; }

        public TagCode Code { get; set; }

        public Meta? Meta { get; set; }
    }

    private sealed class TagCodeHandler : TypeHandler<TagCode>
    {
        public override TagCode Parse(object value) => new((string)value);

        public override void SetValue(DbParameter parameter, TagCode value)
        {
            parameter.DbType = DbType.String;
            parameter.Value = value.Value;
        }
    }

    private sealed class MetaHandler : TypeHandler<Meta>
    {
        public override Meta Parse(object value) => JsonSerializer.Deserialize<Meta>((string)value)!;

        public override void SetValue(DbParameter parameter, Meta value)
        {
            parameter.DbType = DbType.String;
            parameter.Value = JsonSerializer.Serialize(value);
        }
    }

    protected async Task Joins_map_onto_several_types_and_type_handlers_convert_both_ways_in_every_mode()
    {
        Seed();
        string tags = Table + "_tags";
        Database admin = Open(ExecutionMode.OpenPerCall);
        admin.Execute(Text($"create table {tags} (id int primary key, item_id int not null, code varchar(20) not null, meta varchar(200))"));
        try
        {
            var perCall = new Database(Dialect.Factory, Dialect.ConnectionString, Handled(ExecutionMode.OpenPerCall));
            var reuse = new Database(Dialect.Factory, Dialect.ConnectionString, Handled(ExecutionMode.ReuseConnection));
            _owned.Add(perCall);
            _owned.Add(reuse);
            using Session session = await perCall.OpenSessionAsync();
            perCall.Execute(Text($"insert into {tags} (id, item_id, code, meta) values (@id, @item, @code, @meta)"), new[]
            {
                new { id = 1, item = 2, code = new TagCode("red"), meta = (Meta?)new Meta("red", 3) },
                new { id = 2, item = 2, code = new TagCode("big"), meta = (Meta?)null },
                new { id = 3, item = 4, code = new TagCode("old"), meta = (Meta?)new Meta("grey", 1) },
            });

            string join = Text($"select i.id, i.name, i.amount, i.created, t.id, t.code, t.meta from {Table} i " +
                               $"left join {tags} t on t.item_id = i.id where i.id <= @max order by i.id, t.id");
            foreach (SqlRunner runner in new SqlRunner[] { perCall, reuse, session })
            {
                List<string> rows = runner.Query<Item, Tag, string>(join, (item, tag) => $"{item.Id}:{tag?.Code.Value}:{tag?.Meta?.Weight}", new { max = 4 });
                Assert.Equal(["1::", "2:red:3", "2:big:", "3::", "4:old:1"], rows);
                using var cancel = new CancellationTokenSource(TimeSpan.FromSeconds(30));
                List<string> again = await runner.QueryAsync<Item, Tag, string>(
                    join, (item, tag) => $"{item.Id}:{tag?.Code.Value}:{tag?.Meta?.Weight}", new { max = 4 }, cancellationToken: cancel.Token);
                Assert.Equal(rows, again);

                TagCode[] codes = [new("red"), new("old"), new("none")];
                Assert.Equal([1, 3], runner.Query<int>(Text($"select id from {tags} where code in @codes order by id"), new { codes }));
                Assert.Equal(new TagCode("big"), await runner.ScalarAsync<TagCode>(Text($"select code from {tags} where id = @id"), new { id = 2 }));
                Assert.Equal(new Meta("grey", 1), runner.QuerySingle<Tag>(Text($"select id, code, meta from {tags} where code = @code"), new { code = new TagCode("old") }).Meta);

                await using GridReader grids = await runner.QueryMultipleAsync(Text($"select code from {tags} order by id"), cancellationToken: cancel.Token);
                Assert.Equal(["red", "big", "old"], (await grids.ReadAsync<TagCode>(cancel.Token)).Select(c => c.Value));
            }
        }
        finally
        {
            admin.Execute(Text($"drop table {tags}"));
        }

        static OrseisOptions Handled(ExecutionMode mode) => new OrseisOptions { Mode = mode }.AddTypeHandler(new TagCodeHandler()).AddTypeHandler(new MetaHandler());
    }
}
