using System.Data;
using System.Data.Common;
using Microsoft.Data.Sqlite;
using Orseis.Tests.Diagnostics;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Execution;

/// <summary>
/// The three connection sources on their own over a SQLite file: what each hands out, how it serialises or refuses a
/// second call, how a failed open or an abandoned call gives the guard back, and that a closed source refuses calls
/// in its owner's name.
/// </summary>
public sealed class ConnectionSourceTests : IAsyncDisposable
{
    private readonly SqliteFile _file = new();
    private readonly TestDataSource _source;
    private readonly PoolContext _pool;

    public ConnectionSourceTests()
    {
        _source = new TestDataSource(_file.ConnectionString, _file.ConnectionString);
        _pool = new PoolContext(_source, ownsSource: true, new OrseisOptions { ReuseWaitTimeout = TimeSpan.FromMilliseconds(200) }, typeof(SqliteConnection));
    }

    public async ValueTask DisposeAsync()
    {
        await _pool.DisposeAsync();
        _file.Dispose();
    }

    [Fact]
    public async Task Open_per_call_opens_a_connection_per_acquire_and_closes_it_on_release()
    {
        var source = new OpenPerCallSource(_pool, "a call on 'p'");
        Assert.Null(source.Transaction);
        Lease first = await source.AcquireAsync(true, forStream: false, CancellationToken.None);
        Lease second = await source.AcquireAsync(false, forStream: false, CancellationToken.None);
        Assert.NotSame(first.Connection, second.Connection);
        Assert.Equal(2, _pool.Telemetry.InUse);

        DbCommand command = source.RentCommand(first);
        Assert.Same(first.Connection, command.Connection);
        bool disposed = false;
        command.Disposed += (_, _) => disposed = true;
        source.ReturnCommand(first, command, failed: false);
        Assert.True(disposed);

        await source.ReleaseAsync(first, true);
        await source.ReleaseAsync(second, false);
        Assert.Equal(ConnectionState.Closed, first.Connection.State);
        Assert.Equal(0, _pool.Telemetry.InUse);

        first.Connection.Dispose();
        ConnectionBrokenException broken = Assert.IsType<ConnectionBrokenException>(source.TranslateFailure(first.Connection, new IOException()));
        Assert.False(broken.InTransaction);
        Assert.Contains("a call on 'p'", broken.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Open_per_call_closes_an_abandoned_connection_once_the_provider_is_done()
    {
        var source = new OpenPerCallSource(_pool, "p");
        Lease connection = await source.AcquireAsync(false, forStream: false, CancellationToken.None);
        var pending = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        source.Abandon(connection, connection.Connection.CreateCommand(), pending.Task);
        Assert.Equal(ConnectionState.Open, connection.Connection.State);
        pending.SetResult();
        Assert.True(SpinWait.SpinUntil(() => connection.Connection.State == ConnectionState.Closed && _pool.Telemetry.InUse == 0, TimeSpan.FromSeconds(10)));
    }

    [Fact]
    public async Task A_closed_source_refuses_calls_in_its_owner_s_name_and_closes_only_once()
    {
        var database = new OpenPerCallSource(_pool, "p");
        await database.CloseAsync(true);
        Assert.Equal(typeof(Database).FullName, Assert.Throws<ObjectDisposedException>(() => database.AcquireAsync(false, false, CancellationToken.None)).ObjectName);

        var session = new SessionSource(_pool, "s");
        await session.AcquireAsync(false, false, CancellationToken.None);
        await session.CloseAsync(false);
        Assert.Equal(0, _pool.Telemetry.InUse);
        await session.CloseAsync(false);
        Assert.Equal(typeof(Session).FullName, Assert.Throws<ObjectDisposedException>(() => session.AcquireAsync(true, false, CancellationToken.None)).ObjectName);

        var shared = new ReuseConnectionSource(_pool, "d");
        await shared.AcquireAsync(false, false, CancellationToken.None);
        await shared.CloseAsync(true);
        await shared.CloseAsync(true); // the gate is disposed once
        Assert.Equal(0, _pool.Telemetry.InUse);
        Assert.Equal(typeof(Database).FullName, Assert.Throws<ObjectDisposedException>(() => shared.AcquireAsync(false, false, CancellationToken.None)).ObjectName);
    }

    [Fact]
    public async Task A_session_runs_one_call_at_a_time_and_refuses_a_second_instead_of_waiting()
    {
        var session = new SessionSource(_pool, "s");
        Lease connection = await session.AcquireAsync(true, forStream: true, CancellationToken.None);
        var busy = Assert.Throws<SessionBusyException>(() => session.AcquireAsync(true, forStream: false, CancellationToken.None));
        Assert.Equal(
            "This session is already running a command, or a Stream over its results is still being read, on its one connection. " +
            "A session runs one command at a time: finish or dispose the stream first, use one session per concurrent flow, " +
            "or make concurrent calls on the Database in OpenPerCall mode.", busy.Message);
        Assert.False(session.TryEnter());

        await session.ReleaseAsync(connection, true);
        Assert.True(session.TryEnter());
        Assert.Throws<SessionBusyException>(() => session.AcquireAsync(false, forStream: false, CancellationToken.None));
        session.Exit();
        Assert.Equal(connection, await session.AcquireAsync(false, forStream: false, CancellationToken.None));
        Assert.Same(connection.Connection, session.Kept.Connection);
        await session.ReleaseAsync(connection, false);
        await session.CloseAsync(true);
    }

    [Fact]
    public async Task A_session_joins_its_transaction_and_reuses_its_command()
    {
        var session = new SessionSource(_pool, "s");
        Lease connection = await session.AcquireAsync(false, forStream: false, CancellationToken.None);
        Assert.Null(session.Transaction);
        session.Kept.Transaction = connection.Connection.BeginTransaction();
        Assert.Same(session.Kept.Transaction, session.Transaction);

        DbCommand command = session.RentCommand(connection);
        session.ReturnCommand(connection, command, failed: false);
        Assert.Same(command, session.RentCommand(connection));
        session.ReturnCommand(connection, command, failed: true);
        Assert.NotSame(command, session.RentCommand(connection));

        connection.Connection.Close();
        Assert.True(Assert.IsType<ConnectionBrokenException>(session.TranslateFailure(connection.Connection, new IOException())).InTransaction);
        session.Kept.Transaction = null;
        await session.ReleaseAsync(connection, false);
        await session.CloseAsync(false);
    }

    [Fact]
    public async Task A_session_whose_open_fails_is_free_for_the_next_call()
    {
        var session = new SessionSource(_pool, "s");
        _source.Failure = () => new InvalidOperationException("refused");
        await Assert.ThrowsAsync<InvalidOperationException>(async () => await session.AcquireAsync(true, forStream: false, CancellationToken.None));
        _source.Failure = null;
        Assert.True(session.TryEnter());
        session.Exit();
        await session.CloseAsync(true);
    }

    [Fact]
    public async Task A_session_s_abandoned_call_frees_it_and_its_next_call_opens_a_new_connection()
    {
        var session = new SessionSource(_pool, "s");
        Lease connection = await session.AcquireAsync(false, forStream: false, CancellationToken.None);
        session.Abandon(connection, session.RentCommand(connection), Task.CompletedTask);
        Assert.True(session.TryEnter());
        session.Exit();
        Lease next = await session.AcquireAsync(false, forStream: false, CancellationToken.None);
        Assert.NotSame(connection.Connection, next.Connection);
        Assert.True(SpinWait.SpinUntil(() => connection.Connection.State == ConnectionState.Closed, TimeSpan.FromSeconds(10)));
        await session.ReleaseAsync(next, false);
        await session.CloseAsync(false);
    }

    [Fact]
    public async Task A_shared_connection_is_the_same_for_every_call_and_a_waiting_call_gets_it_when_released()
    {
        var shared = new ReuseConnectionSource(_pool, "d");
        Lease first = await shared.AcquireAsync(true, forStream: false, CancellationToken.None);
        Assert.Equal(0, shared.Waits);
        Task<Lease> waiting = Task.Run(async () => await shared.AcquireAsync(true, forStream: false, CancellationToken.None));
        Assert.True(SpinWait.SpinUntil(() => shared.Waits == 1, TimeSpan.FromSeconds(10)));
        Assert.False(waiting.IsCompleted);

        await shared.ReleaseAsync(first, true);
        Assert.Equal(first, await waiting);
        Assert.Equal(1, shared.Waits);
        Assert.Equal(1, _pool.Telemetry.InUse);

        DbCommand command = shared.RentCommand(first);
        shared.ReturnCommand(first, command, failed: false);
        Assert.Same(command, shared.RentCommand(first));
        shared.ReturnCommand(first, command, failed: false);
        await shared.ReleaseAsync(first, false);
        await shared.CloseAsync(false);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_shared_connection_held_too_long_fails_the_waiting_call_with_the_setting_to_change(bool async)
    {
        var shared = new ReuseConnectionSource(_pool, "database 'd'");
        Lease held = await shared.AcquireAsync(true, forStream: false, CancellationToken.None);
        var error = await Task.Run(() => Assert.ThrowsAsync<TimeoutException>(async () => await shared.AcquireAsync(async, forStream: false, CancellationToken.None)));
        Assert.Equal(
            "Waited 0.2 s (OrseisOptions.ReuseWaitTimeout) for the connection of database 'd', which another call or an unfinished stream still holds. " +
            "ReuseConnection runs one command at a time; use OpenPerCall for concurrent work.",
            error.Message);
        Assert.Equal(1, shared.Waits);
        await shared.ReleaseAsync(held, true);
        Assert.Equal(held, await shared.AcquireAsync(async, forStream: false, CancellationToken.None)); // the failed wait took nothing
        await shared.CloseAsync(true);
    }

    [Fact]
    public async Task A_shared_connection_wait_can_be_cancelled()
    {
        var shared = new ReuseConnectionSource(_pool, "d");
        Lease held = await shared.AcquireAsync(true, forStream: false, CancellationToken.None);
        using var cts = new CancellationTokenSource();

        // Cancelled as soon as the call is counted as waiting, not by a timer: on a loaded machine a 50 ms timer can
        // fire after the 200 ms wait limit, and the test would then see the timeout instead of the cancellation.
        Task<Lease> waiting = shared.AcquireAsync(true, forStream: false, cts.Token).AsTask();
        SpinWait.SpinUntil(() => shared.Waits == 1 || waiting.IsCompleted);
        await cts.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting);
        Assert.Equal(1, shared.Waits);
        await shared.ReleaseAsync(held, true);
        Assert.Equal(held, await shared.AcquireAsync(true, forStream: false, CancellationToken.None)); // the cancelled wait took nothing
        await shared.ReleaseAsync(held, true);
        await shared.CloseAsync(true);
    }

    [Fact]
    public async Task A_sync_call_on_the_thread_of_an_open_sync_stream_fails_at_once_instead_of_waiting_forever()
    {
        var shared = new ReuseConnectionSource(_pool, "database 'd'");
        await Task.Run(async () =>
        {
            Lease stream = await shared.AcquireAsync(false, forStream: true, CancellationToken.None);
            var error = Assert.Throws<InvalidOperationException>(() => shared.AcquireAsync(false, forStream: false, CancellationToken.None).AsTask().GetAwaiter().GetResult());
            Assert.Equal(
                "This call would wait forever: a Stream over database 'd' is still open on this thread and holds its only connection. " +
                "Read the stream to a list first (Query), finish it before the next call, or use OpenPerCall mode.", error.Message);
            Assert.Equal(0, shared.Waits);

            await shared.ReleaseAsync(stream, false);
            Lease next = await shared.AcquireAsync(false, forStream: false, CancellationToken.None);
            await shared.ReleaseAsync(next, false);

            // The stream's thread is forgotten: a sync call on it that finds the connection taken by another flow's call waits.
            Lease other = shared.AcquireAsync(true, forStream: false, CancellationToken.None).AsTask().GetAwaiter().GetResult();
            Assert.Throws<TimeoutException>(() => shared.AcquireAsync(false, forStream: false, CancellationToken.None).AsTask().GetAwaiter().GetResult());
            Assert.Equal(1, shared.Waits);
            await shared.ReleaseAsync(other, false);
        });
        await shared.CloseAsync(true);
    }

    [Fact]
    public async Task Only_sync_streams_mark_their_thread()
    {
        var shared = new ReuseConnectionSource(_pool, "d");
        await Task.Run(async () =>
        {
            Lease asyncStream = await shared.AcquireAsync(true, forStream: true, CancellationToken.None);
            // Not a sync stream: a sync call on this thread waits (and times out) rather than failing at once.
            await Assert.ThrowsAsync<TimeoutException>(async () => await shared.AcquireAsync(false, forStream: false, CancellationToken.None));
            await shared.ReleaseAsync(asyncStream, true);

            Lease syncCall = await shared.AcquireAsync(false, forStream: false, CancellationToken.None);
            await Assert.ThrowsAsync<TimeoutException>(async () => await shared.AcquireAsync(false, forStream: false, CancellationToken.None));
            await shared.ReleaseAsync(syncCall, false);
        });
        await shared.CloseAsync(true);
    }

    [Fact]
    public async Task A_shared_connection_whose_open_fails_leaves_the_gate_open()
    {
        var shared = new ReuseConnectionSource(_pool, "d");
        _source.Failure = () => new InvalidOperationException("refused");
        await Assert.ThrowsAsync<InvalidOperationException>(async () => await shared.AcquireAsync(true, forStream: false, CancellationToken.None));
        _source.Failure = null;
        Lease connection = await shared.AcquireAsync(true, forStream: false, CancellationToken.None);
        Assert.Equal(0, shared.Waits);
        await shared.ReleaseAsync(connection, true);
        await shared.CloseAsync(true);
    }

    [Fact]
    public async Task A_shared_connection_s_abandoned_call_frees_the_gate_and_the_next_call_opens_a_new_connection()
    {
        var shared = new ReuseConnectionSource(_pool, "d");
        Lease connection = await shared.AcquireAsync(false, forStream: false, CancellationToken.None);
        var pending = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        shared.Abandon(connection, shared.RentCommand(connection), pending.Task);
        Lease next = await shared.AcquireAsync(true, forStream: false, CancellationToken.None);
        Assert.NotSame(connection.Connection, next.Connection);
        Assert.Equal(0, shared.Waits);
        Assert.Equal(ConnectionState.Open, connection.Connection.State);
        pending.SetResult();
        Assert.True(SpinWait.SpinUntil(() => connection.Connection.State == ConnectionState.Closed, TimeSpan.FromSeconds(10)));

        next.Connection.Close();
        Assert.False(Assert.IsType<ConnectionBrokenException>(shared.TranslateFailure(next.Connection, new IOException())).InTransaction);
        await shared.ReleaseAsync(next, true);
        await shared.CloseAsync(true);
    }
}
