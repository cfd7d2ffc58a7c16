using Microsoft.Data.Sqlite;

namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="ConnectionFailures"/> (when a failure means the connection broke, and what the caller is told) and
/// <see cref="SyncPath"/> (sync code never blocks on a suspended path).
/// </summary>
public sealed class FailureAndSyncTests
{
    private static SqliteConnection Closed() => new("Data Source=:memory:");

    [Fact]
    public void A_failure_on_an_open_connection_is_not_a_broken_connection()
    {
        using SqliteConnection open = Closed();
        open.Open();
        Assert.Null(ConnectionFailures.Translate(open, new IOException("reset"), "Database 'x'", inTransaction: false));
    }

    [Fact]
    public void Cancellations_and_Orseis_own_errors_pass_through_even_when_the_connection_is_closed()
    {
        using SqliteConnection closed = Closed();
        Assert.Null(ConnectionFailures.Translate(closed, new OperationCanceledException(), "Database 'x'", inTransaction: false));
        Assert.Null(ConnectionFailures.Translate(closed, new TaskCanceledException(), "Database 'x'", inTransaction: true));
        Assert.Null(ConnectionFailures.Translate(closed, new CommandTimeoutException("late", TimeSpan.FromSeconds(1), null), "Database 'x'", inTransaction: false));
    }

    [Fact]
    public void A_failure_that_left_the_connection_closed_outside_a_transaction_says_the_next_call_reopens()
    {
        using SqliteConnection closed = Closed();
        var error = new IOException("connection reset by peer");
        ConnectionBrokenException broken = ConnectionFailures.Translate(closed, error, "Session 's1'", inTransaction: false)!;
        Assert.NotNull(broken);
        Assert.Same(error, broken.InnerException);
        Assert.False(broken.InTransaction);
        Assert.True(broken.StatementMayHaveRun);
        Assert.Equal(
            "The connection of Session 's1' broke while a statement ran (the server or the network ended it). " +
            "No transaction was open; the next call opens a new connection. Whether this statement took effect on the server is unknown.",
            broken.Message);
    }

    [Fact]
    public void A_failure_that_left_the_connection_closed_in_a_transaction_says_its_work_is_lost()
    {
        using SqliteConnection closed = Closed();
        ConnectionBrokenException broken = ConnectionFailures.Translate(closed, new InvalidOperationException(), "Session 's1'", inTransaction: true)!;
        Assert.True(broken.InTransaction);
        Assert.True(broken.StatementMayHaveRun);
        Assert.Equal(
            "The connection of Session 's1' broke while a statement ran (the server or the network ended it). A transaction was open, " +
            "so its work is lost (the server rolls it back): dispose the transaction; the next call after that opens a new connection.",
            broken.Message);
    }

    [Fact]
    public void Two_broken_opens_say_nothing_was_sent_and_the_call_can_be_retried()
    {
        var error = new IOException();
        ConnectionBrokenException broken = ConnectionFailures.BrokenOnOpen("Database 'orders'", error);
        Assert.Same(error, broken.InnerException);
        Assert.False(broken.InTransaction);
        Assert.False(broken.StatementMayHaveRun);
        Assert.StartsWith("Opening a connection for Database 'orders' failed twice", broken.Message, StringComparison.Ordinal);
        Assert.EndsWith("Nothing was sent to the server; the call can be retried.", broken.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_completed_sync_path_gives_its_result_or_its_failure()
    {
        Assert.Equal(4, SyncPath.Done(new ValueTask<int>(4)));
        SyncPath.Done(ValueTask.CompletedTask);
        Assert.Equal("bad", Assert.Throws<InvalidOperationException>(() => SyncPath.Done(ValueTask.FromException<int>(new InvalidOperationException("bad")))).Message);
        Assert.Equal("bad", Assert.Throws<InvalidOperationException>(() => SyncPath.Done(ValueTask.FromException(new InvalidOperationException("bad")))).Message);
    }

    [Fact]
    public void A_sync_path_that_suspended_is_reported_as_a_bug_naming_the_caller_instead_of_blocking()
    {
        var pending = new TaskCompletionSource<int>();
        var error = Assert.Throws<InvalidOperationException>(() => SyncPath.Done(new ValueTask<int>(pending.Task)));
        Assert.Equal(
            $"Orseis bug: the sync path of {nameof(A_sync_path_that_suspended_is_reported_as_a_bug_naming_the_caller_instead_of_blocking)} suspended. " +
            "Please report it with the provider and call used.",
            error.Message);

        var plain = new TaskCompletionSource();
        var plainError = Assert.Throws<InvalidOperationException>(() => SyncPath.Done(new ValueTask(plain.Task), "Execute"));
        Assert.StartsWith("Orseis bug: the sync path of Execute suspended.", plainError.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Block_waits_for_truly_asynchronous_work_and_rethrows_its_failure()
    {
        SyncPath.Block(ValueTask.CompletedTask);
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        _ = Task.Run(async () =>
        {
            await Task.Delay(50);
            done.SetResult();
        });
        SyncPath.Block(new ValueTask(done.Task));
        Assert.True(done.Task.IsCompleted);

        Assert.Equal("late", Assert.Throws<TimeoutException>(() => SyncPath.Block(new ValueTask(Task.Run(async () =>
        {
            await Task.Delay(20);
            throw new TimeoutException("late");
        })))).Message);
        Assert.Equal("now", Assert.Throws<TimeoutException>(() => SyncPath.Block(ValueTask.FromException(new TimeoutException("now")))).Message);
    }
}
