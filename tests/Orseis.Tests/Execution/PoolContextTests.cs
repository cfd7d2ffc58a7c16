using System.Data;
using System.Data.Common;
using Microsoft.Data.Sqlite;
using Orseis.Tests.Diagnostics;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="PoolContext"/> over a SQLite file: opens (and the one retry of a connection that broke while it was
/// opened), releases, deferred closes, and the timeouts a call is given and watched by.
/// </summary>
public sealed class PoolContextTests : IDisposable
{
    private readonly SqliteFile _file = new();

    public void Dispose() => _file.Dispose();

    private PoolContext Pool(DbDataSource source, TimeSpan? commandTimeout = null, bool ownsSource = true, TimeProvider? time = null) =>
        new(
            source, ownsSource, new OrseisOptions { CommandTimeout = commandTimeout, Diagnostics = { TimeProvider = time ?? TimeProvider.System } },
            typeof(SqliteConnection));

    private TestDataSource Source() => new(_file.ConnectionString, _file.ConnectionString);

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task An_open_gives_an_open_connection_counted_in_use_until_closed(bool async)
    {
        await using PoolContext pool = Pool(Source());
        Lease connection = await pool.OpenAsync(async, "test", heldByDesign: false, heldAcrossCalls: false, CancellationToken.None);
        Assert.Equal(ConnectionState.Open, connection.Connection.State);
        Assert.Equal(1, pool.Telemetry.InUse);
        Assert.Equal(1, pool.Telemetry.Opens);

        await pool.CloseAsync(connection, async);
        Assert.Equal(ConnectionState.Closed, connection.Connection.State);
        Assert.Equal(0, pool.Telemetry.InUse);
    }

    [Fact]
    public async Task An_async_open_with_a_cancellable_token_is_watched_and_still_opens()
    {
        await using PoolContext pool = Pool(Source());
        using var cts = new CancellationTokenSource();
        Lease connection = await pool.OpenAsync(true, "test", heldByDesign: false, heldAcrossCalls: false, cts.Token);
        Assert.Equal(ConnectionState.Open, connection.Connection.State);
        await pool.CloseAsync(connection, true);
    }

    [Fact]
    public async Task An_async_open_failing_after_its_caller_cancelled_reports_the_cancellation()
    {
        TestDataSource source = Source();
        using var cts = new CancellationTokenSource();
        source.Failure = () =>
        {
            cts.Cancel();
            return new InvalidOperationException("provider noise after the cancel");
        };
        await using PoolContext pool = Pool(source);
        var error = await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await pool.OpenAsync(true, "test", heldByDesign: false, heldAcrossCalls: false, cts.Token));
        Assert.Equal(cts.Token, error.CancellationToken);
        Assert.IsType<InvalidOperationException>(error.InnerException);
        Assert.Equal(0, pool.Telemetry.InUse);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_connection_that_broke_while_opening_is_replaced_once(bool async)
    {
        TestDataSource source = Source();
        int failures = 0;
        source.Failure = () =>
        {
            failures++;
            source.Failure = null; // the next open succeeds
            return new IOException("reset by peer");
        };
        await using PoolContext pool = Pool(source);
        Lease connection = await pool.OpenAsync(async, "test", heldByDesign: false, heldAcrossCalls: false, CancellationToken.None);
        Assert.Equal(ConnectionState.Open, connection.Connection.State);
        Assert.Equal(1, failures);
        Assert.Equal(1, pool.Telemetry.InUse);
        await pool.CloseAsync(connection, async);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_connection_that_broke_twice_while_opening_is_a_broken_connection_nothing_was_sent_on(bool async)
    {
        TestDataSource source = Source();
        int attempts = 0;
        var last = new IOException("second");
        source.Failure = () => Interlocked.Increment(ref attempts) == 1 ? new IOException("first") : last;
        await using PoolContext pool = Pool(source);
        var error = await Assert.ThrowsAsync<ConnectionBrokenException>(async () => await pool.OpenAsync(async, "Session 'x'", heldByDesign: false, heldAcrossCalls: false, CancellationToken.None));
        Assert.Equal(2, attempts);
        Assert.False(error.StatementMayHaveRun);
        Assert.Same(last, error.InnerException);
        Assert.Contains("Session 'x'", error.Message, StringComparison.Ordinal);
        Assert.Equal(0, pool.Telemetry.InUse);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Any_other_open_failure_is_thrown_as_it_is_without_a_retry(bool async)
    {
        TestDataSource source = Source();
        int attempts = 0;
        var refused = new InvalidOperationException("password authentication failed");
        source.Failure = () =>
        {
            Interlocked.Increment(ref attempts);
            return refused;
        };
        await using PoolContext pool = Pool(source);
        Assert.Same(refused, await Assert.ThrowsAsync<InvalidOperationException>(async () => await pool.OpenAsync(async, "test", heldByDesign: false, heldAcrossCalls: false, CancellationToken.None)));
        Assert.Equal(1, attempts);
        Assert.Equal(0, pool.Telemetry.InUse);
    }

    [Fact]
    public async Task A_broken_open_is_not_retried_once_the_caller_cancelled()
    {
        TestDataSource source = Source();
        int attempts = 0;
        using var cts = new CancellationTokenSource();
        source.Failure = () =>
        {
            Interlocked.Increment(ref attempts);
            cts.Cancel();
            return new IOException("reset");
        };
        await using PoolContext pool = Pool(source);
        await Assert.ThrowsAsync<IOException>(async () => await pool.OpenAsync(false, "test", heldByDesign: false, heldAcrossCalls: false, cts.Token));
        Assert.Equal(1, attempts);
    }

    [Fact]
    public async Task A_deferred_close_closes_the_connection_and_disposes_the_command_once_the_operation_ends()
    {
        await using PoolContext pool = Pool(Source());
        Lease connection = await pool.OpenAsync(false, "test", heldByDesign: false, heldAcrossCalls: false, CancellationToken.None);
        DbCommand command = connection.Connection.CreateCommand();
        bool commandDisposed = false;
        command.Disposed += (_, _) => commandDisposed = true;
        var pending = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        pool.CloseWhenDone(connection, command, pending.Task);
        await Task.Delay(50);
        Assert.Equal(ConnectionState.Open, connection.Connection.State);
        Assert.False(commandDisposed);
        Assert.Equal(1, pool.Telemetry.InUse); // the provider still has it: counted in use, which is the truth

        pending.SetException(new InvalidOperationException("the abandoned call failed in the end")); // observed, not rethrown
        Assert.True(SpinWait.SpinUntil(() => connection.Connection.State == ConnectionState.Closed && pool.Telemetry.InUse == 0, TimeSpan.FromSeconds(10)));
        Assert.True(commandDisposed);
    }

    [Fact]
    public async Task A_deferred_close_of_a_connection_never_opened_disposes_it_without_releasing_it()
    {
        await using PoolContext pool = Pool(Source());
        Lease opened = await pool.OpenAsync(false, "test", heldByDesign: false, heldAcrossCalls: false, CancellationToken.None);
        DbConnection unopened = pool.DataSource.CreateConnection();
        unopened.Open();
        var disposed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        unopened.Disposed += (_, _) => disposed.TrySetResult();
        pool.CloseWhenDone(new Lease(unopened, Orseis.Diagnostics.Detectors.HolderTable.NoHold), command: null, Task.CompletedTask, opened: false);
        await disposed.Task.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(ConnectionState.Closed, unopened.State);
        Assert.Equal(1, pool.Telemetry.InUse); // only the connection opened through the pool is counted
        await pool.CloseAsync(opened, false);
    }

    [Fact]
    public async Task An_async_open_that_ignores_the_cancel_is_abandoned_after_the_grace_and_its_connection_closed_later()
    {
        var source = new StubbornOpenSource(_file.ConnectionString);
        var clock = new WatchClock();
        await using PoolContext pool = Pool(source, time: clock);
        using var cts = new CancellationTokenSource();
        Task<Lease> opening = pool.OpenAsync(true, "test", heldByDesign: false, heldAcrossCalls: false, cts.Token).AsTask();
        cts.Cancel();
        Assert.True(await clock.WaitForTimersAsync(1), "the grace was never armed"); // on the database's clock
        clock.Advance(CallWatch.Grace - TimeSpan.FromTicks(1));
        Assert.False(opening.IsCompleted);
        clock.Advance(TimeSpan.FromTicks(1));
        var error = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => opening.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Equal(cts.Token, error.CancellationToken);
        Assert.Equal(
            "Opening the connection was cancelled; the provider did not stop within a second, so Orseis stopped waiting for it " +
            "(the connection is closed once the provider lets go of it).", error.Message);
        Assert.IsType<CallAbandonedException>(error.InnerException);
        Assert.Equal((0L, 0L, 0L), (pool.Telemetry.InUse, pool.Telemetry.Pending, pool.Telemetry.Opens)); // the open is over for the pool

        // The provider finishes opening later: that connection is disposed, never handed out or counted.
        SqliteConnection late = Assert.Single(source.Created);
        source.Release.SetResult();
        Assert.True(SpinWait.SpinUntil(() => source.Disposed.Contains(late), TimeSpan.FromSeconds(10)));
        Assert.Equal(0, pool.Telemetry.InUse);
    }

    [Fact]
    public async Task An_async_open_that_fails_after_its_cancel_within_the_grace_reports_the_cancellation()
    {
        var source = new StubbornOpenSource(_file.ConnectionString) { FailWith = new InvalidOperationException("connect aborted") };
        await using PoolContext pool = Pool(source);
        using var cts = new CancellationTokenSource();
        Task<Lease> opening = pool.OpenAsync(true, "test", heldByDesign: false, heldAcrossCalls: false, cts.Token).AsTask();
        cts.Cancel();
        source.Release.SetResult();
        var error = await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await opening);
        Assert.Equal(cts.Token, error.CancellationToken);
        Assert.IsType<InvalidOperationException>(error.InnerException);
        Assert.Equal(0, pool.Telemetry.InUse);
    }

    [Fact]
    public async Task An_open_for_an_already_cancelled_caller_is_abandoned_after_the_grace_off_the_caller_s_context()
    {
        var source = new StubbornOpenSource(_file.ConnectionString);
        var clock = new WatchClock();
        await using PoolContext pool = Pool(source, time: clock);
        var context = new CountingSynchronizationContext();
        try
        {
            Task<Lease> opening = context.Start(
                () => pool.OpenAsync(true, "test", heldByDesign: false, heldAcrossCalls: false, new CancellationToken(canceled: true)).AsTask());
            Assert.True(await clock.WaitForTimersAsync(1), "the grace was never armed");
            clock.Advance(CallWatch.Grace - TimeSpan.FromTicks(1));
            Assert.False(opening.IsCompleted);
            clock.Advance(TimeSpan.FromTicks(1));
            var error = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => opening.WaitAsync(TimeSpan.FromSeconds(10)));
            Assert.IsType<CallAbandonedException>(error.InnerException);
            Assert.Equal(0, context.Posts);
        }
        finally
        {
            source.Release.TrySetResult();
        }

        SqliteConnection late = Assert.Single(source.Created);
        Assert.True(SpinWait.SpinUntil(() => source.Disposed.Contains(late), TimeSpan.FromSeconds(10)));
    }

    [Fact]
    public async Task A_watched_open_that_fails_with_no_cancel_throws_the_failure_as_it_is()
    {
        var source = new TwinRecordingDataSource(_file.ConnectionString) { OpenFailure = () => new InvalidOperationException("refused") };
        await using PoolContext pool = Pool(source);
        using var cts = new CancellationTokenSource();
        var error = await Assert.ThrowsAsync<InvalidOperationException>(async () => await pool.OpenAsync(true, "test", heldByDesign: false, heldAcrossCalls: false, cts.Token));
        Assert.Equal("refused", error.Message);
        Assert.Equal((0L, 0L, 0L), (pool.Telemetry.InUse, pool.Telemetry.Pending, pool.Telemetry.Opens));
    }

    [Fact]
    public async Task A_provider_that_stops_on_its_own_token_reports_the_caller_s_cancellation()
    {
        var source = new TwinRecordingDataSource(_file.ConnectionString);
        using var cts = new CancellationTokenSource();
        source.OnOpenAsync = provider =>
        {
            cts.Cancel();
            Assert.True(SpinWait.SpinUntil(() => provider.IsCancellationRequested, TimeSpan.FromSeconds(10)));
            provider.ThrowIfCancellationRequested();
        };
        await using PoolContext pool = Pool(source);
        var error = await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await pool.OpenAsync(true, "test", heldByDesign: false, heldAcrossCalls: false, cts.Token));
        Assert.Equal(cts.Token, error.CancellationToken);
        var providers = Assert.IsAssignableFrom<OperationCanceledException>(error.InnerException);
        Assert.NotEqual(cts.Token, providers.CancellationToken);
    }

    [Fact]
    public async Task Disposing_closes_an_owned_data_source_and_leaves_a_borrowed_one()
    {
        var owned = new DisposalTrackingSource(_file.ConnectionString);
        await Pool(owned, ownsSource: true).DisposeAsync();
        Assert.True(owned.Disposed);

        var borrowed = new DisposalTrackingSource(_file.ConnectionString);
        await Pool(borrowed, ownsSource: false).DisposeAsync();
        Assert.False(borrowed.Disposed);
    }

    [Fact]
    public async Task Command_timeouts_are_whole_seconds_rounded_up_zero_for_infinite_and_the_call_s_own_first()
    {
        await using PoolContext none = Pool(Source());
        Assert.Null(none.TimeoutSeconds(null));
        Assert.Equal(2, none.TimeoutSeconds(TimeSpan.FromSeconds(1.2)));
        Assert.Equal(1, none.TimeoutSeconds(TimeSpan.FromSeconds(1)));
        Assert.Equal(1, none.TimeoutSeconds(TimeSpan.FromMilliseconds(1)));
        Assert.Equal(0, none.TimeoutSeconds(TimeSpan.Zero));
        Assert.Equal(0, none.TimeoutSeconds(Timeout.InfiniteTimeSpan));
        Assert.Equal(int.MaxValue, none.TimeoutSeconds(TimeSpan.MaxValue));
        var negative = Assert.Throws<ArgumentOutOfRangeException>(() => none.TimeoutSeconds(TimeSpan.FromSeconds(-2)));
        Assert.Equal("timeout", negative.ParamName);
        Assert.Contains("must be zero or positive", negative.Message, StringComparison.Ordinal);

        await using PoolContext withDefault = Pool(Source(), TimeSpan.FromSeconds(7));
        Assert.Equal(7, withDefault.TimeoutSeconds(null));
        Assert.Equal(3, withDefault.TimeoutSeconds(TimeSpan.FromSeconds(3)));
    }

    [Fact]
    public async Task Only_finite_positive_timeouts_are_watched()
    {
        await using PoolContext none = Pool(Source());
        Assert.Null(none.WatchedTimeout(null));
        Assert.Null(none.WatchedTimeout(TimeSpan.Zero));
        Assert.Null(none.WatchedTimeout(Timeout.InfiniteTimeSpan));
        Assert.Equal(TimeSpan.FromSeconds(2), none.WatchedTimeout(TimeSpan.FromSeconds(2)));
        Assert.Equal(TimeSpan.FromTicks(1), none.WatchedTimeout(TimeSpan.FromTicks(1)));

        await using PoolContext withDefault = Pool(Source(), TimeSpan.FromSeconds(7));
        Assert.Equal(TimeSpan.FromSeconds(7), withDefault.WatchedTimeout(null));
        Assert.Equal(TimeSpan.FromSeconds(1), withDefault.WatchedTimeout(TimeSpan.FromSeconds(1)));
        Assert.Null(withDefault.WatchedTimeout(Timeout.InfiniteTimeSpan));

        await using PoolContext infinite = Pool(Source(), Timeout.InfiniteTimeSpan);
        Assert.Null(infinite.WatchedTimeout(null));
    }

    private sealed class DisposalTrackingSource(string connectionString) : DbDataSource
    {
        public bool Disposed { get; private set; }

        public override string ConnectionString => connectionString;

        protected override DbConnection CreateDbConnection() => new SqliteConnection(connectionString);

        protected override void Dispose(bool disposing)
        {
            Disposed = true;
            base.Dispose(disposing);
        }

        protected override ValueTask DisposeAsyncCore()
        {
            Disposed = true;
            return base.DisposeAsyncCore();
        }
    }

    /// <summary>
    /// Connections whose async open waits for <see cref="Release"/> whatever its token says (a provider whose connect
    /// cannot be cancelled), then opens or fails with <see cref="FailWith"/>.
    /// </summary>
    private sealed class StubbornOpenSource(string connectionString) : DbDataSource
    {
        public TaskCompletionSource Release { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public Exception? FailWith { get; init; }

        public System.Collections.Concurrent.ConcurrentBag<SqliteConnection> Created { get; } = [];

        public System.Collections.Concurrent.ConcurrentBag<SqliteConnection> Disposed { get; } = [];

        public override string ConnectionString => connectionString;

        protected override DbConnection CreateDbConnection()
        {
            var connection = new StubbornConnection(this, connectionString);
            Created.Add(connection);
            return connection;
        }

        private sealed class StubbornConnection(StubbornOpenSource source, string connectionString) : SqliteConnection(connectionString)
        {
            public override async Task OpenAsync(CancellationToken cancellationToken)
            {
                await source.Release.Task.ConfigureAwait(false);
                if (source.FailWith is { } failure)
                    throw failure;
                Open();
            }

            protected override void Dispose(bool disposing)
            {
                source.Disposed.Add(this);
                base.Dispose(disposing);
            }
        }
    }
}
