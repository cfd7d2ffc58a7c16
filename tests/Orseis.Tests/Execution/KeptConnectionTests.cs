using System.Data;
using System.Data.Common;
using Microsoft.Data.Sqlite;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="KeptConnection"/> over a SQLite file: opened once and kept, reopened after it closed unless a transaction
/// was open on it, its command handed out again only after a successful call, and discarded or closed cleanly.
/// </summary>
public sealed class KeptConnectionTests : IAsyncDisposable
{
    private readonly SqliteFile _file = new();
    private readonly PoolContext _pool;
    private readonly KeptConnection _kept;

    public KeptConnectionTests()
    {
        _pool = new PoolContext(SqliteFactory.Instance.CreateDataSource(_file.ConnectionString), ownsSource: true, new OrseisOptions(), typeof(SqliteConnection));
        _kept = new KeptConnection(_pool, "Session 'k'");
    }

    public async ValueTask DisposeAsync()
    {
        await _kept.CloseAsync(async: true);
        await _pool.DisposeAsync();
        _file.Dispose();
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task The_connection_is_opened_once_and_kept(bool async)
    {
        Assert.Null(_kept.Connection);
        Lease first = await _kept.EnsureOpenAsync(async, CancellationToken.None);
        Assert.Same(first.Connection, _kept.Connection);
        Assert.Equal(ConnectionState.Open, first.Connection.State);
        Assert.Equal(first, await _kept.EnsureOpenAsync(async, CancellationToken.None));
        Assert.Equal(0, _kept.Reopens);
        Assert.Equal(1, _pool.Telemetry.Opens);
    }

    [Fact]
    public async Task A_closed_connection_is_replaced_and_counted_when_no_transaction_was_open()
    {
        Lease first = await _kept.EnsureOpenAsync(false, CancellationToken.None);
        DbCommand command = _kept.RentCommand(first.Connection);
        _kept.ReturnCommand(command, failed: false);
        first.Connection.Close();

        Lease second = await _kept.EnsureOpenAsync(false, CancellationToken.None);
        Assert.NotSame(first.Connection, second.Connection);
        Assert.Equal(ConnectionState.Open, second.Connection.State);
        Assert.Equal(1, _kept.Reopens);
        Assert.Equal(1, _pool.Telemetry.InUse); // the old one was given back
        Assert.NotSame(command, _kept.RentCommand(second.Connection)); // the old connection's command went with it
    }

    [Fact]
    public async Task A_closed_connection_with_a_transaction_open_on_it_is_reported_broken_not_replaced()
    {
        Lease connection = await _kept.EnsureOpenAsync(false, CancellationToken.None);
        _kept.Transaction = connection.Connection.BeginTransaction();
        connection.Connection.Close();

        var error = await Assert.ThrowsAsync<ConnectionBrokenException>(async () => await _kept.EnsureOpenAsync(true, CancellationToken.None));
        Assert.True(error.InTransaction);
        Assert.False(error.StatementMayHaveRun);
        Assert.Null(error.InnerException);
        Assert.Equal(
            "The connection of Session 'k' is closed and a transaction was open on it, so the transaction's work is lost. " +
            "Dispose the transaction; the next call after that opens a new connection.", error.Message);
        Assert.Equal(0, _kept.Reopens);
        Assert.Same(connection.Connection, _kept.Connection);
    }

    [Fact]
    public async Task Translate_says_whether_a_transaction_was_open()
    {
        Lease connection = await _kept.EnsureOpenAsync(false, CancellationToken.None);
        Assert.Null(_kept.Translate(connection.Connection, new IOException()));
        connection.Connection.Close();
        Assert.False(Assert.IsType<ConnectionBrokenException>(_kept.Translate(connection.Connection, new IOException())).InTransaction);
        await using var other = new SqliteConnection("Data Source=:memory:");
        other.Open();
        _kept.Transaction = other.BeginTransaction();
        Assert.True(Assert.IsType<ConnectionBrokenException>(_kept.Translate(connection.Connection, new IOException())).InTransaction);
        _kept.Transaction = null;
    }

    [Fact]
    public async Task A_command_returned_after_a_success_is_handed_out_again_with_its_timeout_reset()
    {
        Lease connection = await _kept.EnsureOpenAsync(false, CancellationToken.None);
        DbCommand first = _kept.RentCommand(connection.Connection);
        Assert.Same(connection.Connection, first.Connection);
        int defaultTimeout = first.CommandTimeout;
        first.CommandTimeout = defaultTimeout + 17;
        _kept.ReturnCommand(first, failed: false);

        DbCommand again = _kept.RentCommand(connection.Connection);
        Assert.Same(first, again);
        Assert.Equal(defaultTimeout, again.CommandTimeout);

        // Rented: not handed out twice.
        DbCommand meanwhile = _kept.RentCommand(connection.Connection);
        Assert.NotSame(again, meanwhile);
        _kept.ReturnCommand(again, failed: false);
        _kept.ReturnCommand(meanwhile, failed: false); // one is kept already: this one is disposed
        Assert.Same(again, _kept.RentCommand(connection.Connection));
    }

    [Fact]
    public async Task A_command_whose_call_failed_is_disposed_not_handed_out_again()
    {
        Lease connection = await _kept.EnsureOpenAsync(false, CancellationToken.None);
        DbCommand failed = _kept.RentCommand(connection.Connection);
        bool disposed = false;
        failed.Disposed += (_, _) => disposed = true;
        _kept.ReturnCommand(failed, failed: true);
        Assert.True(disposed);
        Assert.NotSame(failed, _kept.RentCommand(connection.Connection));
    }

    [Fact]
    public async Task A_command_of_another_connection_is_never_kept_or_handed_out()
    {
        Lease connection = await _kept.EnsureOpenAsync(false, CancellationToken.None);
        await using var stranger = new SqliteConnection(_file.ConnectionString);
        DbCommand foreign = stranger.CreateCommand();
        bool disposed = false;
        foreign.Disposed += (_, _) => disposed = true;
        _kept.ReturnCommand(foreign, failed: false);
        Assert.True(disposed);

        // A kept command whose connection is no longer the one asked for is disposed and replaced.
        DbCommand kept = _kept.RentCommand(connection.Connection);
        _kept.ReturnCommand(kept, failed: false);
        bool keptDisposed = false;
        kept.Disposed += (_, _) => keptDisposed = true;
        DbCommand forStranger = _kept.RentCommand(stranger);
        Assert.NotSame(kept, forStranger);
        Assert.Same(stranger, forStranger.Connection);
        Assert.True(keptDisposed);
    }

    [Fact]
    public async Task A_command_returned_with_no_connection_kept_is_disposed()
    {
        Lease connection = await _kept.EnsureOpenAsync(false, CancellationToken.None);
        DbCommand command = _kept.RentCommand(connection.Connection);
        _kept.Discard(connection, null, null);
        bool disposed = false;
        command.Disposed += (_, _) => disposed = true;
        _kept.ReturnCommand(command, failed: false);
        Assert.True(disposed);
    }

    [Fact]
    public async Task A_discarded_connection_is_closed_once_the_provider_is_done_and_the_next_call_opens_another()
    {
        Lease connection = await _kept.EnsureOpenAsync(false, CancellationToken.None);
        DbCommand command = _kept.RentCommand(connection.Connection);
        var pending = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        _kept.Discard(connection, command, pending.Task);
        Assert.Null(_kept.Connection);
        Assert.Equal(1, _kept.Reopens);
        await Task.Delay(50);
        Assert.Equal(ConnectionState.Open, connection.Connection.State);

        pending.SetResult();
        Assert.True(SpinWait.SpinUntil(() => connection.Connection.State == ConnectionState.Closed, TimeSpan.FromSeconds(10)));
        Lease next = await _kept.EnsureOpenAsync(false, CancellationToken.None);
        Assert.NotSame(connection.Connection, next.Connection);
        Assert.Equal(1, _kept.Reopens);
    }

    [Fact]
    public async Task Discarding_a_connection_that_is_no_longer_the_kept_one_leaves_the_kept_one_alone()
    {
        Lease kept = await _kept.EnsureOpenAsync(false, CancellationToken.None);
        Lease other = await _pool.OpenAsync(false, "other", heldByDesign: false, heldAcrossCalls: false, CancellationToken.None);
        _kept.Discard(other, null, null);
        Assert.Same(kept.Connection, _kept.Connection);
        Assert.Equal(0, _kept.Reopens);
        Assert.True(SpinWait.SpinUntil(() => other.Connection.State == ConnectionState.Closed, TimeSpan.FromSeconds(10)));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Closing_rolls_back_an_open_transaction_and_gives_the_connection_back(bool async)
    {
        Lease connection = await _kept.EnsureOpenAsync(async, CancellationToken.None);
        using (DbCommand create = connection.Connection.CreateCommand())
        {
            create.CommandText = "create table t (x integer)";
            create.ExecuteNonQuery();
        }

        DbTransaction transaction = connection.Connection.BeginTransaction();
        _kept.Transaction = transaction;
        using (DbCommand insert = connection.Connection.CreateCommand())
        {
            insert.Transaction = transaction;
            insert.CommandText = "insert into t values (1)";
            insert.ExecuteNonQuery();
        }

        await _kept.CloseAsync(async);
        Assert.Null(_kept.Transaction);
        Assert.Null(_kept.Connection);
        Assert.Equal(ConnectionState.Closed, connection.Connection.State);
        Assert.Equal(0, _pool.Telemetry.InUse);
        Assert.Null(transaction.Connection); // disposed: rolled back

        await using var check = new SqliteConnection(_file.ConnectionString);
        check.Open();
        using DbCommand count = check.CreateCommand();
        count.CommandText = "select count(*) from t";
        Assert.Equal(0L, count.ExecuteScalar());
    }

    [Fact]
    public async Task Closing_with_nothing_open_does_nothing()
    {
        await _kept.CloseAsync(false);
        Assert.Null(_kept.Connection);
        Assert.Equal(0, _pool.Telemetry.InUse);
    }
}
