namespace Orseis.IntegrationTests.Infrastructure;

/// <summary>Runs a call that may fail on purpose (a deadlock picks one of two), and says how it ended.</summary>
internal static class Outcome
{
    /// <summary>
    /// Starts <paramref name="call"/> on a thread of its own, as a caller blocked on a lock: MySql.Data's async calls run
    /// synchronously, and on a pool thread, beside other tests' blocked calls, its start could wait seconds for a thread.
    /// </summary>
    public static Task<Exception?> OnOwnThread(Func<Task> call) =>
        Task.Factory.StartNew(() => FailureOf(call), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default).Unwrap();

    /// <summary>The exception <paramref name="call"/> ended with, or null when it succeeded.</summary>
    public static async Task<Exception?> FailureOf(Func<Task> call)
    {
        try
        {
            await call();
            return null;
        }
        catch (Exception error)
        {
            return error;
        }
    }
}
