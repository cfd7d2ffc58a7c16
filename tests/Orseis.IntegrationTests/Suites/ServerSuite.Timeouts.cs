using System.Diagnostics;

namespace Orseis.IntegrationTests.Suites;

/// <summary>A statement that outlives its command timeout ends with a <see cref="CommandTimeoutException"/> in every mode and call form.</summary>
public abstract partial class ServerSuite
{
    protected async Task A_command_timeout_is_its_own_error_in_every_mode()
    {
        Database perCall = Open(ExecutionMode.OpenPerCall);
        Database reuse = Open(ExecutionMode.ReuseConnection);
        await using Session session = await Open(ExecutionMode.OpenPerCall).OpenSessionAsync();
        foreach ((string mode, SqlRunner runner) in new (string, SqlRunner)[] { ("OpenPerCall", perCall), ("ReuseConnection", reuse), ("Session", session) })
        {
            foreach (bool async in new[] { true, false })
            {
                var clock = Stopwatch.StartNew();
                string sql = Dialect.MarkedSleepSql(10, "orseis_timeout");
                CommandTimeoutException error = async
                    ? await Assert.ThrowsAsync<CommandTimeoutException>(() => runner.ExecuteAsync(sql, timeout: TimeSpan.FromSeconds(1)))
                    : Assert.Throws<CommandTimeoutException>(() => runner.Execute(sql, timeout: TimeSpan.FromSeconds(1)));
                Assert.True(clock.Elapsed < TimeSpan.FromSeconds(8), $"{mode}, async={async}: the timed-out call took {clock.Elapsed.TotalSeconds:0.0} s");
                Assert.Equal(TimeSpan.FromSeconds(1), error.Timeout);
                Assert.Contains("command timeout", error.Message, StringComparison.Ordinal);
                Assert.Equal(1, await runner.ScalarAsync<int>("select 1"));
            }
        }
    }
}
