using System.Data;
using System.Data.Common;
using System.Diagnostics;

namespace Orseis.Execution.Calls;

/// <summary>What a call throws when its timeout ran out or its caller cancelled it, whoever noticed first.</summary>
internal static class CallErrors
{
    /// <summary>
    /// A <see cref="CommandTimeoutException"/> for a provider's failure that came when the call's timeout had run out
    /// (the provider's own report of its command timeout, whatever its type or wording); null for any other failure.
    /// </summary>
    public static CommandTimeoutException? TimedOut(
        TimeSpan? timeout, long started, Exception error, DbConnection connection, bool inTransaction, CancellationToken cancellationToken)
    {
        if (timeout is not { } limit || started == 0 || cancellationToken.IsCancellationRequested)
            return null;

        // A cancellation the caller did not ask for is the provider's own timeout too (Npgsql stops the statement
        // with a cancel request and throws OperationCanceledException when its command timeout wins the race).
        if (error is OrseisException)
            return null;
        TimeSpan elapsed = Stopwatch.GetElapsedTime(started);
        if (elapsed < limit - TimeSpan.FromMilliseconds(50))
            return null;
        return new CommandTimeoutException(
            $"The call did not complete within its command timeout of {limit.TotalSeconds:0.###} s (the call's timeout argument, or " +
            $"OrseisOptions.CommandTimeout); the provider stopped it after {elapsed.TotalSeconds:0.###} s. " +
            "Whether the statement took effect is unknown." +
            (connection.State == ConnectionState.Open ? "" : inTransaction
                ? " The provider closed the connection as it stopped the statement, so the open transaction is lost " +
                  "(the server rolls it back): " +
                  "dispose the transaction; the next call after that opens a new connection."
                : " The provider closed the connection as it stopped the statement; the next call opens a new connection."),
            limit, error);
    }

    /// <summary>What the caller gets for a provider operation that a <see cref="CallWatch"/> had to abandon.</summary>
    public static Exception Abandoned(CallWatch watch, TimeSpan? timeout, Exception abandoned, CancellationToken cancellationToken)
    {
        const string Why = "the provider did not stop within a second, so Orseis abandoned the call: its connection is closed once " +
                           "the provider lets go of it, and a session or ReuseConnection database opens a new one for its next call.";
        if (watch.CallerCancelled)
            return new OperationCanceledException($"The call was cancelled; {Why}", abandoned, cancellationToken);
        return new CommandTimeoutException(
            $"The call did not complete within its command timeout of {timeout?.TotalSeconds:0.###} s " +
            $"(the call's timeout argument, or OrseisOptions.CommandTimeout); {Why}", timeout ?? TimeSpan.Zero, abandoned);
    }

    /// <summary>
    /// The error for a provider operation that ended because a <see cref="CallWatch"/> stopped it; null for any other failure.
    /// </summary>
    public static Exception? Stopped(CallWatch watch, TimeSpan? timeout, Exception error, CancellationToken cancellationToken)
    {
        if (watch.CallerCancelled)
        {
            bool callers = error is OperationCanceledException oce && oce.CancellationToken == cancellationToken;
            return callers ? null : Cancellation.Reported(error, cancellationToken);
        }

        if (watch.DeadlineHit)
        {
            return new CommandTimeoutException(
                $"The call did not complete within its command timeout of {timeout?.TotalSeconds:0.###} s (the call's timeout " +
                "argument, or OrseisOptions.CommandTimeout); the provider was stopped.", timeout ?? TimeSpan.Zero, error);
        }

        return null;
    }
}
