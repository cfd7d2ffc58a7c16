using System.Data;
using Orseis.Tests.Execution;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Api;

/// <summary>
/// How a sequence is cut into batches on a provider that has <see cref="System.Data.Common.DbBatch"/> (SQLite given one
/// by <see cref="BatchingDataSource"/>), and when it runs one command per item instead.
/// </summary>
public sealed class ExecuteManyBatchTests : IDisposable
{
    private const string Insert = "insert into items (id, name, amount) values (@id, @name, @amount)";

    private readonly SqliteFile _file = new();
    private readonly BatchingDataSource _source;

    public ExecuteManyBatchTests()
    {
        _source = new BatchingDataSource(_file.ConnectionString);
        using var setup = new Database(_source);
        setup.Execute("create table items (id integer primary key, name text not null, amount integer)");
    }

    public void Dispose()
    {
        _source.Dispose();
        _file.Dispose();
    }

    private static object[] Items(int from, int count) => [.. Enumerable.Range(from, count).Select(i => new { id = i, name = "n" + i, amount = i % 7 })];

    private Database Open(ExecutionMode mode, TimeSpan? timeout = null) => new(_source, new OrseisOptions { Mode = mode, CommandTimeout = timeout });

    [Fact]
    public void Each_item_of_a_batch_gets_its_own_literal()
    {
        using Database db = Open(ExecutionMode.OpenPerCall);
        object[] rows = [.. Enumerable.Range(1, 5).Select(i => new { id = i, name = "n" + i, amount = -i })];
        Assert.Equal(5, db.Execute("insert into items (id, name, amount) values ({=id}, @name, {=amount})", rows));
        Assert.Equal((5, 5), (_source.Batches.Single().Commands, _source.Batches.Single().Parameters)); // one batch; @name only
        Assert.Equal(-15, db.Scalar<int>("select sum(amount) from items where id in {=ids}", new { ids = new[] { 1, 2, 3, 4, 5 } }));
    }

    [Theory]
    [InlineData(ExecutionMode.OpenPerCall)]
    [InlineData(ExecutionMode.ReuseConnection)]
    public async Task Batches_hold_at_most_1000_items_and_2000_parameters_and_carry_the_timeout(ExecutionMode mode)
    {
        await using Database db = Open(mode, TimeSpan.FromSeconds(17));

        // Three parameters an item: 666 items fill 1998 parameters, so 1500 items take 666 + 666 + 168.
        Assert.Equal(1500, await db.ExecuteAsync(Insert, Items(1, 1500)));
        Assert.Equal([(666, 1998), (666, 1998), (168, 504)], _source.Batches.Select(b => (b.Commands, b.Parameters)));
        Assert.All(_source.Batches, b => Assert.Equal(17, b.Timeout));

        // One parameter an item: the item bound (1000) ends a batch before the parameters do. Rows affected are summed
        // from each batch command's count: ids 1501..2500 match nothing.
        _source.Batches.Clear();
        object[] single = [.. Enumerable.Range(1, 2500).Select(i => new { id = i })];
        Assert.Equal(1500, db.Execute("update items set amount = 0 where id = @id", single));
        Assert.Equal([1000, 1000, 500], _source.Batches.Select(b => b.Commands));
        Assert.Equal(1500, db.Scalar<int>("select count(*) from items where amount = 0"));
    }

    [Fact]
    public void An_item_with_more_parameters_than_a_batch_holds_goes_alone_and_lists_expand_per_item()
    {
        using Database db = Open(ExecutionMode.OpenPerCall);
        db.Execute(Insert, Items(1, 3000));
        _source.Batches.Clear();
        var items = new object[]
        {
            new { name = "a", ids = new[] { 1, 2 } },
            new { name = "big", ids = Enumerable.Range(10, 2500).ToArray() },
            new { name = "c", ids = new[] { 3 } },
        };
        Assert.Equal(2503, db.Execute("update items set name = @name where id in @ids", items));
        Assert.Equal([(1, 3), (1, 2501), (1, 2)], _source.Batches.Select(b => (b.Commands, b.Parameters)));
        Assert.Equal(["a", "a", "c"], db.Query<string>("select name from items where id <= 3 order by id"));
        Assert.Equal(2500, db.Scalar<int>("select count(*) from items where name = 'big'"));
    }

    [Fact]
    public async Task A_session_batch_joins_its_transaction_and_rolls_back_with_it()
    {
        await using Database db = Open(ExecutionMode.OpenPerCall);
        await using Session session = await db.OpenSessionAsync();
        await using (SessionTransaction tx = await session.BeginTransactionAsync())
        {
            Assert.Equal(10, await session.ExecuteAsync(Insert, Items(1, 10)));
            Assert.NotNull(Assert.Single(_source.Batches).Transaction);
            await tx.RollbackAsync();
        }

        Assert.Equal(0, await session.ScalarAsync<int>("select count(*) from items"));
    }

    [Fact]
    public async Task A_failing_batch_command_names_its_item_across_batches()
    {
        await using Database db = Open(ExecutionMode.OpenPerCall);
        db.Execute(Insert, new { id = 1200, name = "taken", amount = 0 });
        var error = await Assert.ThrowsAsync<BatchCommandException>(() => db.ExecuteAsync(Insert, Items(1, 1500)));
        Assert.Equal(1199, error.Data["Orseis.ItemIndex"]); // item 1199 (id 1200) is the 533rd command of the second batch
        Assert.Equal((666, 666), (error.Data["Orseis.BatchStart"], error.Data["Orseis.BatchSize"]));
        Assert.Equal(2, _source.Batches.Count);
    }

    [Fact]
    public void Several_statements_and_bags_with_outputs_or_a_procedure_run_one_command_per_item()
    {
        using Database db = Open(ExecutionMode.OpenPerCall);
        Assert.Equal(4, db.Execute("insert into items (id, name) values (@id, 'x'); update items set amount = 1 where id = @id;", new[] { new { id = 11 }, new { id = 12 } }));
        Assert.Empty(_source.Batches);
        Assert.Equal([1, 1], db.Query<int>("select amount from items where id in (11, 12)"));

        ParameterBag[] inputs = [new ParameterBag().Add("id", 21), new ParameterBag().Add("id", 22, DbType.Int64)];
        Assert.Equal(2, db.Execute("insert into items (id, name) values (@id, 'in')", inputs));
        Assert.Equal(2, Assert.Single(_source.Batches).Commands);

        // SQLite has neither outputs nor procedures; MariaDB's procedure tests run such bags through MySqlConnector's batches.
        Assert.False(inputs[1].NeedsOwnCommand);
        Assert.True(new ParameterBag().Add("id", 1).Add("total", direction: ParameterDirection.Output, dbType: DbType.Int32).NeedsOwnCommand);
        Assert.True(new ParameterBag().Add("id", 1).Add("r", direction: ParameterDirection.ReturnValue).NeedsOwnCommand);
        Assert.True(new ParameterBag { CommandType = CommandType.StoredProcedure }.Add("id", 1).NeedsOwnCommand);
    }

    [Fact]
    public void A_failing_item_run_alone_carries_its_index_too()
    {
        using Database db = new(SqliteFactoryInstance, _file.ConnectionString); // plain SQLite: no batches
        db.Execute(Insert, new { id = 3, name = "taken", amount = 0 });
        var error = Assert.ThrowsAny<Exception>(() => db.Execute(Insert, Items(1, 5)));
        Assert.Equal(2, error.Data["Orseis.ItemIndex"]);
        Assert.Equal(3, db.Scalar<int>("select count(*) from items")); // items 0 and 1 ran, nothing after item 2
    }

    [Fact]
    public void A_single_item_runs_as_one_command_not_a_batch()
    {
        using Database db = Open(ExecutionMode.OpenPerCall);
        Assert.Equal(1, db.Execute(Insert, Items(1, 1)));
        Assert.Empty(_source.Batches);
        Assert.Equal(2, db.Execute(Insert, Items(2, 2)));
        Assert.Equal(2, Assert.Single(_source.Batches).Commands);
    }

    public sealed record Counted(int Value);

    /// <summary>Counts how often a <see cref="Counted"/> is bound.</summary>
    private sealed class CountingHandler : TypeHandler<Counted>
    {
        private int _calls;

        public int Calls => Volatile.Read(ref _calls);

        public override Counted Parse(object value) => new(Convert.ToInt32(value, System.Globalization.CultureInfo.InvariantCulture));

        public override void SetValue(System.Data.Common.DbParameter parameter, Counted value)
        {
            Interlocked.Increment(ref _calls);
            parameter.Value = value.Value;
        }
    }

    [Fact]
    public void Each_item_is_bound_once_even_the_one_that_starts_the_next_batch()
    {
        // Three parameters an item: the 667th no longer fits the first batch, so it is bound there and carried to the next.
        var handler = new CountingHandler();
        using Database db = new(_source, new OrseisOptions().AddTypeHandler(handler));
        object[] items = [.. Enumerable.Range(1, 667).Select(i => new { id = i, name = "n", amount = new Counted(i) })];
        Assert.Equal(667, db.Execute(Insert, items));
        Assert.Equal([666, 1], _source.Batches.Select(b => b.Commands));
        Assert.Equal(667, handler.Calls);
        Assert.Equal(667, db.Scalar<int>("select amount from items where id = 667"));
    }

    [Fact]
    public void Exactly_2000_parameters_fill_one_batch()
    {
        // Four parameters an item: 500 items bind 2000, the most a batch holds, so the 501st starts the next batch.
        using Database db = Open(ExecutionMode.OpenPerCall);
        object[] items = [.. Enumerable.Range(1, 501).Select(i => new { id = i, name = "n", amount = i, extra = 1 })];
        Assert.Equal(501, db.Execute("insert into items (id, name, amount) values (@id, @name, @amount + @extra)", items));
        Assert.Equal([(500, 2000), (1, 4)], _source.Batches.Select(b => (b.Commands, b.Parameters)));
        Assert.Equal(502, db.Scalar<int>("select amount from items where id = 501"));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Sync_calls_run_and_dispose_their_batches_sync_and_async_calls_async(bool async)
    {
        await using Database db = Open(ExecutionMode.OpenPerCall);
        Assert.Equal(1500, async ? await db.ExecuteAsync(Insert, Items(1, 1500)) : db.Execute(Insert, Items(1, 1500)));
        Assert.Equal([async, async, async], _source.Batches.Select(b => b.Async));
        Assert.Equal(Enumerable.Repeat(async ? "DisposeAsync" : "Dispose", 3), _source.Disposals);

        // A failed batch is disposed too.
        _source.Disposals.Clear();
        Assert.ThrowsAny<Exception>(() => db.Execute(Insert, Items(1, 2)));
        Assert.Equal(["Dispose"], _source.Disposals);
    }

    [Theory]
    [InlineData("ExecuteNonQueryAsync")]
    [InlineData("DisposeAsync")]
    public async Task Batches_that_suspend_resume_off_the_caller_s_context(string yielding)
    {
        await using Database db = Open(ExecutionMode.OpenPerCall);
        _source.Yielding.Add(yielding);
        var context = new CountingSynchronizationContext();
        Assert.Equal(10, await context.Start(() => db.ExecuteAsync(Insert, Items(1, 10))));
        Assert.Equal(0, context.Posts);
    }

    [Fact]
    public async Task A_cancel_while_a_batch_runs_stops_the_call_before_the_next_batch()
    {
        await using Database db = Open(ExecutionMode.OpenPerCall);
        using var cts = new CancellationTokenSource();
        _source.AfterExecuteAsync = provider =>
        {
            cts.Cancel();
            Assert.True(SpinWait.SpinUntil(() => provider.IsCancellationRequested, TimeSpan.FromSeconds(10)));
        };

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => db.ExecuteAsync(Insert, Items(1, 1500), cancellationToken: cts.Token));
        _source.AfterExecuteAsync = null;
        Assert.Single(_source.Batches);
        Assert.Equal(666, db.Scalar<int>("select count(*) from items"));
    }

    [Fact]
    public async Task A_cancel_while_an_item_runs_stops_the_call_before_the_next_item()
    {
        var plain = new TwinRecordingDataSource(_file.ConnectionString); // no batches: one command per item
        await using Database db = new(plain);
        using var cts = new CancellationTokenSource();
        plain.AfterExecuteAsync = provider =>
        {
            cts.Cancel();
            Assert.True(SpinWait.SpinUntil(() => provider.IsCancellationRequested, TimeSpan.FromSeconds(10)));
        };

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => db.ExecuteAsync(Insert, Items(1, 3), cancellationToken: cts.Token));
        Assert.Equal(1, plain.Count("ExecuteNonQueryAsync"));
        Assert.Equal(1, db.Scalar<int>("select count(*) from items"));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Items_run_one_by_one_sync_or_async_as_the_call_is(bool async)
    {
        var plain = new TwinRecordingDataSource(_file.ConnectionString);
        await using Database db = new(plain);
        Assert.Equal(3, async ? await db.ExecuteAsync(Insert, Items(1, 3)) : db.Execute(Insert, Items(1, 3)));
        Assert.Equal(async ? 0 : 3, plain.Count("ExecuteNonQuery"));
        Assert.Equal(async ? 3 : 0, plain.Count("ExecuteNonQueryAsync"));
    }

    private static Microsoft.Data.Sqlite.SqliteFactory SqliteFactoryInstance => Microsoft.Data.Sqlite.SqliteFactory.Instance;
}
