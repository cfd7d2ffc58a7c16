namespace Orseis.Diagnostics;

/// <summary>
/// Recognises a provider's "no pooled connection became free in time" failure without referencing any provider:
/// Npgsql (NpgsqlException "The connection pool has been exhausted..." with an inner TimeoutException), SqlClient
/// (InvalidOperationException "Timeout expired... obtaining a connection from the pool..."), MySqlConnector
/// (MySqlException "Connect Timeout expired... All pooled connections are in use").
/// </summary>
internal static class PoolTimeouts
{
    public static bool IsPoolTimeout(Exception error)
    {
        if (error is OperationCanceledException)
            return false;
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            string message = e.Message;
            if (message.Contains("pool has been exhausted", StringComparison.OrdinalIgnoreCase))
                return true;
            bool mentionsPool = message.Contains("pool", StringComparison.OrdinalIgnoreCase);
            bool mentionsTimeout = message.Contains("timeout", StringComparison.OrdinalIgnoreCase) ||
                                   message.Contains("timed out", StringComparison.OrdinalIgnoreCase);
            if (mentionsPool && mentionsTimeout)
                return true;
        }

        return false;
    }
}
