namespace Orseis;

/// <summary>Settings of a <see cref="Database"/>. Validated when the database is created.</summary>
public sealed class OrseisOptions
{
    /// <summary>How connections are acquired for calls made on the database. Default: <see cref="ExecutionMode.OpenPerCall"/>.</summary>
    public ExecutionMode Mode { get; set; } = ExecutionMode.OpenPerCall;

    /// <summary>
    /// Command timeout for every call that does not give its own; <see langword="null"/> keeps the provider's default
    /// (usually 30 s). <see cref="Timeout.InfiniteTimeSpan"/> or <see cref="TimeSpan.Zero"/> means no timeout.
    /// </summary>
    public TimeSpan? CommandTimeout { get; set; }

    /// <summary>
    /// In <see cref="ExecutionMode.ReuseConnection"/>, how long a call waits for the shared connection while another
    /// flow uses it before failing with a clear error. Default: 30 seconds.
    /// </summary>
    public TimeSpan ReuseWaitTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// The name this database's pool carries in metrics, events and reports. Default: the provider's system name with
    /// the server and database taken from the connection string (never the user or password).
    /// </summary>
    public string? PoolName { get; set; }

    /// <summary>Pool diagnostics: events, metrics and detectors. See <see cref="Diagnostics.DiagnosticsOptions"/>.</summary>
    public Diagnostics.DiagnosticsOptions Diagnostics { get; set; } = new();

    internal OrseisOptions Validate()
    {
        if (!Enum.IsDefined(Mode))
            throw new ArgumentException($"OrseisOptions.Mode has the undefined value {(int)Mode}; use OpenPerCall or ReuseConnection.", nameof(Mode));
        if (CommandTimeout is { } t && t < TimeSpan.Zero && t != Timeout.InfiniteTimeSpan)
            throw new ArgumentException($"OrseisOptions.CommandTimeout must be zero or positive (or Timeout.InfiniteTimeSpan), not {t}.", nameof(CommandTimeout));
        if (ReuseWaitTimeout <= TimeSpan.Zero && ReuseWaitTimeout != Timeout.InfiniteTimeSpan)
            throw new ArgumentException($"OrseisOptions.ReuseWaitTimeout must be positive (or Timeout.InfiniteTimeSpan), not {ReuseWaitTimeout}.", nameof(ReuseWaitTimeout));
        if (PoolName is { Length: 0 })
            throw new ArgumentException("OrseisOptions.PoolName must not be empty; leave it null for the default name.", nameof(PoolName));
        Diagnostics.Validate();
        return this;
    }
}
