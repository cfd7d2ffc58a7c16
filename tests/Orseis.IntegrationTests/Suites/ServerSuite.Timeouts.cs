using System.Diagnostics;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// A statement that outlives its command timeout ends with a <see cref="CommandTimeoutException"/>, and a cancelled one with an
/// <see cref="OperationCanceledException"/>, in every mode and call shape (buffered, stream, grid; sync and async).
/// </summary>
public abstract partial class ServerSuite
{
    protected async Task A_command_timeout_is_its_own_error_in_every_mode()
    {
        Database perCall = Open(ExecutionMode.OpenPerCall);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        await using Session session = await perCall.OpenSessionAsync();
        foreach ((string mode, SqlRunner runner) in new (string, SqlRunner)[] { ("OpenPerCall", perCall), ("ReuseConnection", reuse), ("Session", session) })
        {
            foreach (string form in CallForms)
            {
                var clock = Stopwatch.StartNew();
                string sql = Dialect.MarkedSleepSql(10, "orseis_timeout");
                Exception? thrown = await Record.ExceptionAsync(() => Call(runner, form, sql, timeout: TimeSpan.FromSeconds(1)));
                Assert.True(thrown is CommandTimeoutException, $"{mode}, {form}: {thrown}");
                var error = (CommandTimeoutException)thrown!;
                Assert.True(clock.Elapsed < TimeSpan.FromSeconds(8), $"{mode}, {form}: the timed-out call took {clock.Elapsed.TotalSeconds:0.0} s");
                Assert.Equal(TimeSpan.FromSeconds(1), error.Timeout);
                Assert.Contains("command timeout", error.Message, StringComparison.Ordinal);
                Assert.Equal(1, await runner.ScalarAsync<int>("select 1"));
            }
        }

        Assert.Equal(1, perCall.GetPoolReport().InUse); // the session's; every timed-out call gave its connection back
    }

    protected async Task A_cancelled_call_of_every_shape_returns_at_once_and_gives_its_connection_back()
    {
        Database perCall = Open(ExecutionMode.OpenPerCall);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        await using Session session = await perCall.OpenSessionAsync();
        foreach ((string mode, SqlRunner runner) in new (string, SqlRunner)[] { ("OpenPerCall", perCall), ("ReuseConnection", reuse), ("Session", session) })
        {
            foreach (string form in CallForms.Where(f => f.EndsWith("async", StringComparison.Ordinal)))
            {
                using var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(500));
                var clock = Stopwatch.StartNew();
                Exception? thrown = await Record.ExceptionAsync(
                    () => Call(runner, form, Dialect.MarkedSleepSql(10, "orseis_cancel"), cancellationToken: cancel.Token));
                Assert.True(thrown is OperationCanceledException, $"{mode}, {form}: {thrown}");
                Assert.True(clock.Elapsed < TimeSpan.FromSeconds(4), $"{mode}, {form}: the cancelled call took {clock.Elapsed.TotalSeconds:0.0} s");
                Assert.Equal(1, await runner.ScalarAsync<int>("select 1"));
            }
        }

        Assert.Equal(1, perCall.GetPoolReport().InUse);
    }
}
