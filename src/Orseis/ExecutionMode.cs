namespace Orseis;

/// <summary>How a <see cref="Database"/> gets a connection for each call.</summary>
public enum ExecutionMode
{
    /// <summary>
    /// Every call creates, opens, uses and disposes its own connection; the provider's pool does the reuse.
    /// Safe for any number of concurrent callers. This is the default.
    /// </summary>
    OpenPerCall = 0,

    /// <summary>
    /// All calls share one open connection, opened on first use and kept until the database is disposed.
    /// Calls from concurrent flows are serialised (one command at a time) and the waits are counted.
    /// </summary>
    ReuseConnection = 1,
}
