using System.Data.Common;
using Orseis.Diagnostics;

namespace Orseis.Execution;

/// <summary>
/// What every runner of one <see cref="Database"/> shares: the data source that opens connections, the validated
/// options and the pool's telemetry. All connection opens go through <see cref="OpenAsync"/>, so every open is timed
/// in one place whatever the mode.
/// </summary>
internal sealed class PoolContext : IAsyncDisposable
{
    private readonly bool _ownsSource;

    public PoolContext(DbDataSource source, bool ownsSource, OrseisOptions options, Type providerType)
    {
        DataSource = source;
        _ownsSource = ownsSource;
        Options = options;
        string system = ProviderInfo.SystemName(providerType);
        string name = options.PoolName ?? ProviderInfo.DefaultPoolName(system, source.ConnectionString);
        ProviderPoolStats? providerPool = options.Diagnostics.Detectors != FindingKind.None ? ProviderPoolStats.For(system, source) : null;
        Telemetry = new PoolTelemetry(
            name, system, ProviderInfo.MaxPoolSize(system, source.ConnectionString), options.Diagnostics, providerPool, source.ConnectionString);
    }

    public DbDataSource DataSource { get; }

    public OrseisOptions Options { get; }

    public PoolTelemetry Telemetry { get; }

    /// <summary>Opens a connection for <paramref name="owner"/> (named in held-too-long findings); give it back with <see cref="CloseAsync"/>.</summary>
    public async ValueTask<DbConnection> OpenAsync(bool async, string owner, bool heldByDesign, CancellationToken cancellationToken)
    {
        DbConnection connection = DataSource.CreateConnection();
        long started = Telemetry.OpenStarting(async);
        try
        {
            if (async)
                await connection.OpenAsync(cancellationToken).ConfigureAwait(false);
            else
                connection.Open();
        }
        catch (Exception error)
        {
            Telemetry.OpenCompleted(started, error);
            if (async)
                await connection.DisposeAsync().ConfigureAwait(false);
            else
                connection.Dispose();
            if (Telemetry.TranslateOpenFailure(error) is { } exhausted)
                throw exhausted;
            throw;
        }

        Telemetry.OpenCompleted(started, null);
        Telemetry.Acquired(connection, owner, heldByDesign);
        return connection;
    }

    /// <summary>Gives a connection from <see cref="OpenAsync"/> back to the pool.</summary>
    public ValueTask CloseAsync(DbConnection connection, bool async)
    {
        Telemetry.Released(connection);
        if (async)
            return connection.DisposeAsync();
        connection.Dispose();
        return default;
    }

    /// <summary>The command timeout in whole seconds for a call's own timeout or the database's default.</summary>
    public int? TimeoutSeconds(TimeSpan? callTimeout)
    {
        TimeSpan? timeout = callTimeout ?? Options.CommandTimeout;
        if (timeout is not { } t)
            return null;
        if (t == Timeout.InfiniteTimeSpan)
            return 0;
        if (t < TimeSpan.Zero)
            throw new ArgumentOutOfRangeException("timeout", $"A command timeout must be zero or positive (or Timeout.InfiniteTimeSpan), not {t}.");
        return (int)Math.Min(int.MaxValue, Math.Ceiling(t.TotalSeconds));
    }

    public ValueTask DisposeAsync()
    {
        Telemetry.Dispose();
        return _ownsSource ? DataSource.DisposeAsync() : default;
    }
}
