using System.Data;
using System.Data.Common;
using Microsoft.Data.Sqlite;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Execution;

/// <summary>
/// A sync call uses the provider's sync methods and an async call its async ones, down to disposing a connection whose
/// open failed; connections closed later, after a provider let go of them, are closed synchronously on the thread pool;
/// and a kept connection's command goes with it whenever the connection is replaced, discarded or closed.
/// </summary>
public sealed class SyncAsyncTwinTests : IAsyncDisposable
{
    private readonly SqliteFile _file = new();
    private readonly TwinRecordingDataSource _source;
    private readonly PoolContext _pool;

    public SyncAsyncTwinTests()
    {
        _source = new TwinRecordingDataSource(_file.ConnectionString);
        _pool = new PoolContext(_source, ownsSource: true, new OrseisOptions(), typeof(SqliteConnection));
    }

    public async ValueTask DisposeAsync()
    {
        await _pool.DisposeAsync();
        _file.Dispose();
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Open_per_call_opens_and_closes_sync_or_async_as_the_call_is(bool async)
    {
        await using Database db = new(_source);
        Assert.Equal(1L, async ? await db.ScalarAsync<long>("select 1") : db.Scalar<long>("select 1"));
        Assert.Equal(async ? ["OpenAsync", "DisposeAsync"] : ["Open", "Dispose"], _source.Calls);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_connection_whose_open_failed_is_disposed_sync_or_async_as_the_call_is(bool async)
    {
        await using Database db = new(_source);
        _source.OpenFailure = () => new SqliteException("no such server", 14);
        if (async)
            await Assert.ThrowsAsync<SqliteException>(() => db.ScalarAsync<long>("select 1"));
        else
            Assert.Throws<SqliteException>(() => db.Scalar<long>("select 1"));
        Assert.Equal(async ? ["OpenAsync", "DisposeAsync"] : ["Open", "Dispose"], _source.Calls);
        Assert.Equal(0, db.GetPoolReport().InUse);
    }

    [Fact]
    public async Task A_discarded_connection_goes_with_its_commands_and_is_closed_sync_once_the_provider_is_done()
    {
        var kept = new KeptConnection(_pool, "session 'k'");
        Lease connection = await kept.EnsureOpenAsync(true, CancellationToken.None);
        DbCommand previous = kept.RentCommand(connection.Connection);
        kept.ReturnCommand(previous, failed: false); // kept for the next call
        DbCommand running = kept.RentCommand(connection.Connection);
        Assert.Same(previous, running);
        kept.ReturnCommand(running, failed: false);
        DbCommand stuck = connection.Connection.CreateCommand(); // a call's command the provider still uses
        var pending = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        kept.Discard(connection, stuck, pending.Task);
        Assert.True(_source.DisposedCommands.ContainsKey(previous)); // the kept command at once
        Assert.False(_source.DisposedCommands.ContainsKey(stuck));
        Assert.Equal(ConnectionState.Open, connection.Connection.State);
        Assert.Equal(1, _pool.Telemetry.InUse);

        pending.SetResult();
        Assert.True(SpinWait.SpinUntil(() => _pool.Telemetry.InUse == 0, TimeSpan.FromSeconds(10)));
        Assert.True(SpinWait.SpinUntil(() => _source.Count("Dispose") == 1, TimeSpan.FromSeconds(10)));
        Assert.True(_source.DisposedCommands.ContainsKey(stuck));
        Assert.Equal(["OpenAsync", "Dispose"], _source.Calls);
    }

    [Fact]
    public async Task Replacing_a_broken_kept_connection_disposes_its_command()
    {
        var kept = new KeptConnection(_pool, "session 'k'");
        Lease first = await kept.EnsureOpenAsync(false, CancellationToken.None);
        DbCommand command = kept.RentCommand(first.Connection);
        kept.ReturnCommand(command, failed: false);
        first.Connection.Close();

        await kept.EnsureOpenAsync(false, CancellationToken.None);
        Assert.True(_source.DisposedCommands.ContainsKey(command));
        Assert.Equal(["Open", "Dispose", "Open"], _source.Calls);
        await kept.CloseAsync(false);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Closing_a_kept_connection_disposes_its_command_and_closes_sync_or_async(bool async)
    {
        var kept = new KeptConnection(_pool, "session 'k'");
        Lease connection = await kept.EnsureOpenAsync(async, CancellationToken.None);
        DbCommand command = kept.RentCommand(connection.Connection);
        kept.ReturnCommand(command, failed: false);

        await kept.CloseAsync(async);
        Assert.True(_source.DisposedCommands.ContainsKey(command));
        Assert.Equal(async ? ["OpenAsync", "DisposeAsync"] : ["Open", "Dispose"], _source.Calls);
        Assert.Equal(0, _pool.Telemetry.InUse);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Closing_with_a_transaction_open_disposes_it_first_sync_or_async(bool async)
    {
        var kept = new KeptConnection(_pool, "session 'k'");
        Lease connection = await kept.EnsureOpenAsync(async, CancellationToken.None);
        kept.Transaction = new RecordingTransaction(connection.Connection, _source.Calls, yields: false);

        await kept.CloseAsync(async);
        Assert.Equal(async ? ["OpenAsync", "Transaction.DisposeAsync", "DisposeAsync"] : ["Open", "Transaction.Dispose", "Dispose"], _source.Calls);
        Assert.Null(kept.Transaction);
    }

    [Fact]
    public async Task A_transaction_whose_connection_already_closed_is_left_to_it()
    {
        var kept = new KeptConnection(_pool, "session 'k'");
        Lease connection = await kept.EnsureOpenAsync(false, CancellationToken.None);
        kept.Transaction = new RecordingTransaction(connection.Connection, _source.Calls, yields: false);
        connection.Connection.Close();

        await kept.CloseAsync(false);
        Assert.Equal(["Open", "Dispose"], _source.Calls);
    }

    [Fact]
    public async Task Disposing_the_transaction_while_closing_resumes_off_the_caller_s_context()
    {
        var kept = new KeptConnection(_pool, "session 'k'");
        Lease connection = await kept.EnsureOpenAsync(true, CancellationToken.None);
        kept.Transaction = new RecordingTransaction(connection.Connection, _source.Calls, yields: true);
        var context = new CountingSynchronizationContext();

        await context.Start(() => kept.CloseAsync(async: true).AsTask());
        Assert.Equal(0, context.Posts);
        Assert.Equal(["OpenAsync", "Transaction.DisposeAsync", "DisposeAsync"], _source.Calls);
    }

    /// <summary>A transaction that only records how it was disposed (and may really suspend doing it).</summary>
    private sealed class RecordingTransaction(DbConnection connection, System.Collections.Concurrent.ConcurrentQueue<string> calls, bool yields)
        : DbTransaction
    {
        public override IsolationLevel IsolationLevel => IsolationLevel.Serializable;

        protected override DbConnection DbConnection => connection;

        public override void Commit()
        {
        }

        public override void Rollback()
        {
        }

        protected override void Dispose(bool disposing)
        {
            if (disposing)
                calls.Enqueue("Transaction.Dispose");
        }

        public override async ValueTask DisposeAsync()
        {
            calls.Enqueue("Transaction.DisposeAsync");
            if (yields)
                await Task.Delay(1, CancellationToken.None).ConfigureAwait(false);
        }
    }
}
