namespace Orseis.IntegrationTests.Infrastructure;

/// <summary>Runs a call that may fail on purpose (a deadlock picks one of two), and says how it ended.</summary>
internal static class Outcome
{
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
