using System.Data.Common;
using Orseis.Diagnostics;

namespace Orseis.Execution.Modes;

/// <summary>
/// What every runner of one <see cref="Database"/> shares: the data source that opens connections, the validated
/// options and the pool's telemetry. All connection opens go through <see cref="OpenAsync"/>, so every open is timed
/// in one place whatever the mode.
/// </summary>
internal sealed partial class PoolContext : IAsyncDisposable
{
    private readonly bool _ownsSource;

    public PoolContext(DbDataSource source, bool ownsSource, OrseisOptions options, Type providerType)
    {
        DataSource = source;
        _ownsSource = ownsSource;
        Options = options;
        Handlers = Mapping.TypeHandlerSet.From(options.TypeHandlers, options.NullKeepsDefault);
        Traits = ProviderTraits.For(providerType);
        WhyNoEnlistment = AmbientTransactions.WhyNoEnlistment(Traits, providerType, source.ConnectionString);
        string system = Traits.SystemName;
        string name = options.PoolName ?? ProviderInfo.DefaultPoolName(system, source.ConnectionString);
        ProviderPoolStats? providerPool = options.Diagnostics.Detectors != FindingKind.None
            ? ProviderPoolStats.For(Traits, source, options.Diagnostics.ProviderPoolCounts)
            : null;
        Deadlines = DeadlineSweep.For(options.Diagnostics.TimeProvider);
        Parks = ParkSweep.For(options.Diagnostics.TimeProvider, options.ScopeIdleWindow);
        Telemetry = new PoolTelemetry(
            name, system, Traits.MaxPoolSize(source.ConnectionString), options.Diagnostics, providerPool, source.ConnectionString,
            Traits.AsyncRunsSynchronously ? Traits.RootNamespace : null, Traits.OwnInstruments, Traits.SpanSource, Traits)
        {
            ProviderVisibility = Traits.PoolVisibility,
        };
    }

    public DbDataSource DataSource { get; }

    public OrseisOptions Options { get; }

    /// <summary>What Orseis knows of the provider, worked out once for this database.</summary>
    public ProviderTraits Traits { get; }

    /// <summary>The type handlers of this database, frozen at its creation; null when it has none.</summary>
    public Mapping.TypeHandlerSet? Handlers { get; }

    public PoolTelemetry Telemetry { get; }

    /// <summary>The deadlines of this database's call watches, on its clock (<see cref="DiagnosticsOptions.TimeProvider"/>).</summary>
    public DeadlineSweep Deadlines { get; }

    /// <summary>The timer that gives parked connections of this database's scopes back to the pool, on its clock.</summary>
    public ParkSweep Parks { get; }

    /// <summary>Which statements' parked connections this database's scopes reused and which went back unused.</summary>
    public ParkMemory ParkMemory { get; } = new();

    /// <summary>Null when this provider's connections join an ambient TransactionScope as they open; otherwise why not.</summary>
    public string? WhyNoEnlistment { get; }

    /// <summary>
    /// Opens a connection for <paramref name="owner"/> (named in held-too-long findings); give it back with
    /// <see cref="CloseAsync"/>. <paramref name="heldAcrossCalls"/>: a session's or a stream's connection, whose acquiring
    /// stack the held-too-long detector records (a one-shot call's is not recorded). A pooled connection that turns out to be broken while
    /// it is opened or reset (the
    /// server restarted since it was pooled) is replaced once; nothing has been sent then, so this is always safe.
    /// </summary>
    /// <param name="async">Whether the open is async.</param>
    /// <param name="owner">Who holds the connection, for findings.</param>
    /// <param name="heldByDesign">Whether the connection is held by design (a session's).</param>
    /// <param name="heldAcrossCalls">Whether the connection is held across the caller's code.</param>
    /// <param name="cancellationToken">Cancels the open.</param>
    /// <param name="flow">The caller's flow as its entry point read it (<see cref="PoolTelemetry.EnterFlow"/>); null to read it
    /// at the open.</param>
    public ValueTask<Lease> OpenAsync(
        bool async, string owner, bool heldByDesign, bool heldAcrossCalls, CancellationToken cancellationToken,
        Diagnostics.Detectors.FlowState? flow = null) =>
        OrseisActivitySource.Tracing
            ? OpenTracedAsync(async, owner, heldByDesign, heldAcrossCalls, flow, cancellationToken)
            : OpenCoreAsync(async, owner, heldByDesign, heldAcrossCalls, flow, cancellationToken);

    /// <summary>Gives a connection from <see cref="OpenAsync"/> back to the pool.</summary>
    public ValueTask CloseAsync(Lease lease, bool async)
    {
        DbConnection connection = lease.Connection;
        Telemetry.Released(connection, lease.Hold);
        if (async)
            return connection.DisposeAsync();
        connection.Dispose();
        return default;
    }

    /// <summary>A call's own timeout, else the database's default; null when neither was set (most calls).</summary>
    public TimeSpan? CommandTimeout(TimeSpan? callTimeout) => callTimeout ?? Options.CommandTimeout;

    /// <summary>The command timeout in whole seconds for a call's own timeout or the database's default.</summary>
    public int? TimeoutSeconds(TimeSpan? timeout)
    {
        if (CommandTimeout(timeout) is not { } t)
            return null;
        if (t == Timeout.InfiniteTimeSpan)
            return 0;
        if (t < TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(
                nameof(timeout), $"A command timeout must be zero or positive (or Timeout.InfiniteTimeSpan), not {t}.");
        }

        return (int)Math.Min(int.MaxValue, Math.Ceiling(t.TotalSeconds));
    }

    /// <summary>
    /// The timeout a <see cref="CallWatch"/> enforces for a call: the call's own or the database's, when one was set and is
    /// finite; null otherwise (the provider's own default then applies, unwatched).
    /// </summary>
    public TimeSpan? WatchedTimeout(TimeSpan? callTimeout) =>
        CommandTimeout(callTimeout) is { } t && t > TimeSpan.Zero && t != Timeout.InfiniteTimeSpan ? t : null;

    /// <summary>
    /// Closes a connection whose state is unknown (an abandoned call's, a failed commit's) once <paramref name="pending"/>
    /// completes, with its command; the pool counts it in use until then, which is the truth. Closing rolls back an open
    /// transaction, and the provider resets the connection before handing it out again (MySqlConnector, Npgsql and
    /// SqlClient do by default) or discards it when it broke. ADO.NET has no call to keep one connection of a data
    /// source's pool from being pooled again: static <c>ClearPool(connection)</c> does not reach MySqlConnector's data
    /// source pools, and would close every idle connection too.
    /// </summary>
    public void CloseWhenDone(Lease lease, DbCommand? command, Task pending, bool opened = true) =>
        pending.ContinueWith(
            static (task, state) =>
            {
                _ = task.Exception; // observed: the caller was already told why the call ended
                var (self, lease, command, opened) = ((PoolContext, Lease, DbCommand?, bool))state!;
                try
                {
                    command?.Dispose();
                    if (opened)
                        SyncPath.Done(self.CloseAsync(lease, async: false));
                    else
                        lease.Connection.Dispose();
                }
#pragma warning disable CA1031 // nobody waits for this: a provider that fails to close must not crash the process
                catch (Exception)
#pragma warning restore CA1031
                {
                }
            },
            (this, lease, command, opened), CancellationToken.None, TaskContinuationOptions.None, TaskScheduler.Default);

    public ValueTask DisposeAsync()
    {
        Telemetry.Dispose();
        return _ownsSource ? DataSource.DisposeAsync() : default;
    }
}
