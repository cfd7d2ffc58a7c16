using System.Data;
using System.Data.Common;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// Execute-many on the server: batched (<see cref="DbBatch"/>) where the provider has it, one command per item where it
/// does not, with the same results in every mode, sync and async.
/// </summary>
public abstract partial class ServerSuite
{
    /// <summary>Four parameters per item: 500 items fill a batch's 2000 parameters, so 1234 items take three batches.</summary>
    private const int LongSequence = 1234;

    private string InsertItem => Text($"insert into {Table} (id, name, amount, created) values (@Id, @Name, @Amount, @Created)");

    private static Item[] Items(ref int next, int count, string prefix = "many")
    {
        int first = next;
        next += count;
        return Enumerable.Range(first, count).Select(i => new Item(i, $"{prefix} {i}", i % 100 + 0.25m, new DateTime(2024, 3, 1 + i % 28))).ToArray();
    }

    /// <summary>What a sequence wrote: its rows' count and the sum of ids, names and amounts, read back from the table.</summary>
    private async Task<string> Written(Database db, string prefix)
    {
        List<Item> rows = await db.QueryAsync<Item>(Text($"select id, name, amount, created from {Table} where name like @like order by id"), new { like = prefix + " %" });
        Assert.All(rows, r => Assert.Equal((r.Name, r.Amount, r.Created), ($"{prefix} {r.Id}", r.Id % 100 + 0.25m, new DateTime(2024, 3, 1 + r.Id % 28))));
        return $"{rows.Count} rows, ids {rows.Sum(r => (long)r.Id)}";
    }

    protected async Task A_long_sequence_gives_the_same_rows_in_every_mode_sync_and_async_and_rolls_back_with_its_transaction()
    {
        Database db = Seed();
        Database perCall = Open(ExecutionMode.OpenPerCall);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        await using Session session = await perCall.OpenSessionAsync();
        using var live = new CancellationTokenSource(); // a cancellable token puts async calls under their watch
        int next = 100_000;
        long expectedIds = 0;
        int expectedRows = 0;
        foreach ((string mode, SqlRunner runner) in new (string, SqlRunner)[] { ("OpenPerCall", perCall), ("ReuseConnection", reuse), ("Session", session) })
        {
            Item[] sync = Items(ref next, LongSequence);
            Assert.True(runner.Execute(InsertItem, sync) == LongSequence, mode);
            Item[] async = Items(ref next, LongSequence);
            Assert.True(await runner.ExecuteAsync(InsertItem, async, cancellationToken: live.Token) == LongSequence, mode);
            expectedIds += sync.Concat(async).Sum(i => (long)i.Id);
            expectedRows += 2 * LongSequence;
        }

        await using (SessionTransaction tx = await session.BeginTransactionAsync())
        {
            Item[] committed = Items(ref next, LongSequence);
            Assert.Equal(LongSequence, await session.ExecuteAsync(InsertItem, committed));
            await tx.CommitAsync();
            expectedIds += committed.Sum(i => (long)i.Id);
            expectedRows += LongSequence;
        }

        using (SessionTransaction tx = session.BeginTransaction())
        {
            Assert.Equal(LongSequence, session.Execute(InsertItem, Items(ref next, LongSequence)));
            Assert.Equal(LongSequence, await session.ExecuteAsync(InsertItem, Items(ref next, LongSequence)));
            tx.Rollback();
        }

        Assert.Equal($"{expectedRows} rows, ids {expectedIds}", await Written(db, "many"));

        // Rows affected are summed over the items, an item that matches nothing counting 0.
        string update = Text($"update {Table} set amount = amount + 1 where id between @From and @To");
        var ranges = new[] { new { From = 100_000, To = 100_009 }, new { From = 1, To = 0 }, new { From = 100_010, To = 100_010 } };
        Assert.Equal(11, perCall.Execute(update, ranges));
        Assert.Equal(11, await session.ExecuteAsync(update, ranges));
    }

    /// <summary>Each item is bound as a call of its own would be: its own list expansion, type handlers, parameter bags.</summary>
    protected async Task Each_item_of_a_sequence_expands_its_lists_and_uses_type_handlers_in_every_mode()
    {
        Seed();
        var options = new OrseisOptions();
        options.AddTypeHandler(new TagCodeHandler());
        Database perCall = Track(new Database(Dialect.Factory, Dialect.ConnectionString, options));
        Database reuse = Track(new Database(Dialect.Factory, Dialect.ConnectionString, new OrseisOptions { Mode = ExecutionMode.ReuseConnection }.AddTypeHandler(new TagCodeHandler())));
        await using Session session = await perCall.OpenSessionAsync();
        string rename = Text($"update {Table} set name = @Code where id in @Ids");
        foreach ((string mode, SqlRunner runner) in new (string, SqlRunner)[] { ("OpenPerCall", perCall), ("ReuseConnection", reuse), ("Session", session) })
        {
            var items = new object[]
            {
                new { Code = new TagCode(mode + " a"), Ids = new[] { 1, 2, 3 } },
                new { Code = new TagCode(mode + " b"), Ids = new[] { 4 } },
                new { Code = new TagCode(mode + " none"), Ids = Array.Empty<int>() },
                new { Code = new TagCode(mode + " c"), Ids = Enumerable.Range(5, 10).ToArray() },
            };
            Assert.True(await runner.ExecuteAsync(rename, items) == 14, mode);
            Assert.Equal(new TagCode(mode + " b"), runner.Scalar<TagCode>(Text($"select name from {Table} where id = 4")));
            Assert.Equal(10, runner.Scalar<int>(Text($"select count(*) from {Table} where name = @Code"), new { Code = new TagCode(mode + " c") }));

            // Parameter bags without outputs, with a DbType and size, go in the batch like any item.
            ParameterBag[] bags = [.. Enumerable.Range(15, 3).Select(id => new ParameterBag().Add("Id", id).Add("Name", $"{mode} bag {id}", DbType.String, size: 100))];
            Assert.True(runner.Execute(Text($"update {Table} set name = @Name where id = @Id"), bags) == 3, mode);
            Assert.Equal(bags.Select(b => b.Get<string>("Name")), runner.Query<string>(Text($"select name from {Table} where id between 15 and 17 order by id")));
        }
    }

    /// <summary>
    /// An item that fails: the provider's own exception, carrying the item's index where the provider names the failed
    /// batch command; outside a transaction, what stays of the failing batch is the provider's rule (see docs).
    /// </summary>
    /// <param name="batched">Whether the provider runs the sequence in batches.</param>
    /// <param name="itemNamed">Whether the provider says which item failed (one command per item always does).</param>
    /// <param name="batchIsAtomic">True where a failing batch outside a transaction leaves none of its items (Npgsql's implicit transaction).</param>
    /// <param name="connectionString">The connection string to use; null for the dialect's.</param>
    protected async Task A_failing_item_is_named_and_the_rest_does_not_run(bool batched, bool itemNamed, bool batchIsAtomic, string? connectionString = null)
    {
        Seed();
        Database db = Open(ExecutionMode.OpenPerCall, connectionString);
        Database reuse = Open(ExecutionMode.ReuseConnection, connectionString);
        await using Session session = await db.OpenSessionAsync();
        int next = 300_000;
        foreach ((string mode, SqlRunner runner) in new (string, SqlRunner)[] { ("OpenPerCall", db), ("ReuseConnection", reuse), ("Session", session) })
        {
            foreach (bool async in new[] { false, true })
            {
                Item[] items = Items(ref next, 6, "fail");
                items[3] = items[3] with { Id = 7 }; // id 7 exists: a duplicate key
                Exception error = async
                    ? await Assert.ThrowsAnyAsync<DbException>(() => runner.ExecuteAsync(InsertItem, items))
                    : Assert.ThrowsAny<DbException>(() => runner.Execute(InsertItem, items));
                if (itemNamed)
                    Assert.True(Equals(3, error.Data["Orseis.ItemIndex"]), $"{mode}, async={async}: item index {error.Data["Orseis.ItemIndex"] ?? "missing"}");
                else
                    Assert.Null(error.Data["Orseis.ItemIndex"]);
                Assert.Equal(batched ? (0, 6) : (null, null), (error.Data["Orseis.BatchStart"], error.Data["Orseis.BatchSize"]));
                Assert.Equal(1, await runner.ScalarAsync<int>("select 1"));

                // Nothing after the failing item ran; the items before it stayed unless the batch is atomic.
                int[] kept = [.. await runner.QueryAsync<int>(Text($"select id from {Table} where id >= @first and id <= @last order by id"), new { first = items[0].Id, last = items[5].Id })];
                Assert.True((batchIsAtomic ? [] : new[] { items[0].Id, items[1].Id, items[2].Id }).SequenceEqual(kept), $"{mode}, async={async}: kept {string.Join(", ", kept)}");
            }
        }

        // Inside a transaction, a rollback undoes the items before the failure, on every provider.
        await using (SessionTransaction tx = await session.BeginTransactionAsync())
        {
            Item[] items = Items(ref next, 4, "fail");
            items[2] = items[2] with { Id = 8 };
            await Assert.ThrowsAnyAsync<DbException>(() => session.ExecuteAsync(InsertItem, items));
            await tx.RollbackAsync();
        }

        Assert.Equal(0, await db.ScalarAsync<int>(Text($"select count(*) from {Table} where id >= @from"), new { from = next - 4 }));
    }

    /// <summary>A sequence cancelled while its second batch is bound stops there: the first batch ran, not everything.</summary>
    protected async Task A_cancelled_sequence_stops_between_batches()
    {
        Database db = Seed();
        await using Session session = await db.OpenSessionAsync();
        using var cancel = new CancellationTokenSource();
        Tripwire[] items = [.. Enumerable.Range(400_000, LongSequence).Select(id => new Tripwire(id, id == 400_700 ? cancel : null))];
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => session.ExecuteAsync(InsertItem, items, cancellationToken: cancel.Token));
        int written = await session.ScalarAsync<int>(Text($"select count(*) from {Table} where id >= 400000"));
        Assert.InRange(written, 500, LongSequence - 1); // the first batch (500 items), or one item at a time up to the cancel
        Assert.Equal(1, await session.ScalarAsync<int>("select 1"));
    }

    /// <summary>The command timeout holds for a batch as for a statement: a batch with an item that sleeps past it ends on time, in every mode.</summary>
    protected async Task A_batch_that_outlives_its_timeout_is_a_command_timeout_in_every_mode()
    {
        string sleep = Dialect switch
        {
            PostgresDialect => "select pg_sleep(@Seconds)",
            SqlServerDialect => "waitfor delay @Delay",
            _ => "select sleep(@Seconds)",
        };
        var items = new[] { new { Seconds = 0, Delay = "00:00:00" }, new { Seconds = 5, Delay = "00:00:05" }, new { Seconds = 0, Delay = "00:00:00" } };
        Database perCall = Open(ExecutionMode.OpenPerCall);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        await using Session session = await perCall.OpenSessionAsync();
        foreach ((string mode, SqlRunner runner) in new (string, SqlRunner)[] { ("OpenPerCall", perCall), ("ReuseConnection", reuse), ("Session", session) })
        {
            foreach (bool async in new[] { true, false })
            {
                var clock = System.Diagnostics.Stopwatch.StartNew();
                CommandTimeoutException error = async
                    ? await Assert.ThrowsAsync<CommandTimeoutException>(() => runner.ExecuteAsync(sleep, items, timeout: TimeSpan.FromSeconds(1)))
                    : Assert.Throws<CommandTimeoutException>(() => runner.Execute(sleep, items, timeout: TimeSpan.FromSeconds(1)));
                Assert.True(clock.Elapsed < TimeSpan.FromSeconds(4.5), $"{mode}, async={async}: the timed-out sequence took {clock.Elapsed.TotalSeconds:0.0} s");
                Assert.Equal(TimeSpan.FromSeconds(1), error.Timeout);
                Assert.Equal(1, await runner.ScalarAsync<int>("select 1"));
            }
        }
    }

    private Database Track(Database db)
    {
        _owned.Add(db);
        return db;
    }

    /// <summary>An item whose binding cancels a token, as if the caller cancelled at that moment.</summary>
    public sealed class Tripwire(int id, CancellationTokenSource? cancel)
    {
        public int Id => id;

        public string Name
        {
            get
            {
                cancel?.Cancel();
                return "trip " + id;
            }
        }

        public decimal Amount => 1;

        public DateTime Created => new(2024, 4, 1);
    }
}
