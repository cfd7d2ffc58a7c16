namespace Orseis.Diagnostics;

/// <summary>What kind of "no connection in time" a provider's open failure is.</summary>
internal enum OpenTimeout
{
    /// <summary>Not a timeout of the open.</summary>
    None,

    /// <summary>The provider timed out waiting for a pooled connection.</summary>
    PoolWait,

    /// <summary>The provider timed out making a new connection (MySqlConnector's "Connect Timeout expired.", Npgsql's timeout while
    /// connecting).</summary>
    Connect,
}

/// <summary>
/// The last resort for a provider Orseis does not know (<see cref="Execution.ProviderTraits.Other"/>), whose exceptions
/// carry nothing but a message: an open failure whose message, or an inner one's, speaks of a pool and a timeout is a
/// pool wait, and "Connect Timeout expired" or a timeout while connecting is a connect. Known providers are read by type
/// and error code instead (<see cref="Execution.ProviderErrors"/>).
/// </summary>
internal static class PoolTimeouts
{
    public static OpenTimeout Classify(Exception error)
    {
        if (error is OperationCanceledException)
            return OpenTimeout.None;
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            string message = e.Message;
            if (message.Contains("pool has been exhausted", StringComparison.OrdinalIgnoreCase))
                return OpenTimeout.PoolWait;
            bool mentionsPool = message.Contains("pool", StringComparison.OrdinalIgnoreCase);
            bool mentionsTimeout = message.Contains("timeout", StringComparison.OrdinalIgnoreCase) ||
                                   message.Contains("timed out", StringComparison.OrdinalIgnoreCase);
            if (mentionsPool && mentionsTimeout)
                return OpenTimeout.PoolWait;
        }

        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            string message = e.Message;
            if (message.Contains("Connect Timeout expired", StringComparison.OrdinalIgnoreCase) ||
                message.Contains("timeout while connecting", StringComparison.OrdinalIgnoreCase) ||
                message.Contains("timeout during connecting", StringComparison.OrdinalIgnoreCase))
            {
                return OpenTimeout.Connect;
            }
        }

        return OpenTimeout.None;
    }
}
