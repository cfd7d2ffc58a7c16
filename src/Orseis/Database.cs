using System.Data.Common;

namespace Orseis;

/// <summary>
/// The entry point: a provider, a connection string and <see cref="OrseisOptions"/>. Its calls (see
/// <see cref="SqlRunner"/>) get their connection as <see cref="OrseisOptions.Mode"/> says; <see cref="OpenSession"/>
/// gives a <see cref="Session"/> that keeps one connection across calls whatever the mode. Thread-safe; create one per
/// connection string and share it.
/// </summary>
/// <example>
/// <code>
/// await using var db = new Database(SqliteFactory.Instance, "Data Source=app.db");
/// var user = await db.QuerySingleAsync&lt;User&gt;($"select * from users where id = {id}");
/// </code>
/// </example>
public sealed partial class Database : SqlRunner, IDisposable, IAsyncDisposable
{
    private int _disposed;

    /// <summary>Creates a database over a provider factory (such as <c>SqliteFactory.Instance</c>) and a connection string.</summary>
    /// <param name="factory">The ADO.NET provider.</param>
    /// <param name="connectionString">The connection string; pooling settings in it apply as the provider defines them.</param>
    /// <param name="options">Settings; null for the defaults. Validated here.</param>
    /// <exception cref="ArgumentException">An option is invalid; the message names it.</exception>
    public Database(DbProviderFactory factory, string connectionString, OrseisOptions? options = null)
        : this(Check(factory, connectionString).CreateDataSource(connectionString), ownsSource: true, options, factory.GetType())
    {
    }

    /// <summary>Creates a database over a provider's data source (such as an <c>NpgsqlDataSource</c>), which stays the caller's to
    /// dispose.</summary>
    /// <param name="dataSource">The data source that opens connections.</param>
    /// <param name="options">Settings; null for the defaults. Validated here.</param>
    /// <exception cref="ArgumentException">An option is invalid; the message names it.</exception>
    public Database(DbDataSource dataSource, OrseisOptions? options = null)
        : this(dataSource ?? throw new ArgumentNullException(nameof(dataSource)), ownsSource: false, options, dataSource.GetType())
    {
    }

    private Database(DbDataSource source, bool ownsSource, OrseisOptions? options, Type providerType)
        : base(SourceFor(new PoolContext(source, ownsSource, (options ?? new OrseisOptions()).Validate(), providerType)))
    {
        Mode = Pool.Options.Mode;
    }

    /// <summary>The connection source of <see cref="OrseisOptions.Mode"/>: the one place a database's mode is chosen.</summary>
    private static ConnectionSource SourceFor(PoolContext pool) => pool.Options.Mode switch
    {
        ExecutionMode.ReuseConnection => new ReuseConnectionSource(pool, $"database '{pool.Telemetry.PoolName}' (ReuseConnection mode)"),
        _ => new OpenPerCallSource(pool, pool.Telemetry.PoolName),
    };

    /// <summary>How this database's calls get their connection.</summary>
    public ExecutionMode Mode { get; }

    /// <summary>The name of this database's pool in metrics, events and reports.</summary>
    public string PoolName => Pool.Telemetry.PoolName;

    /// <summary>
    /// In <see cref="ExecutionMode.ReuseConnection"/>, how many calls had to wait for the shared connection because
    /// another flow was using it. Always 0 in <see cref="ExecutionMode.OpenPerCall"/>.
    /// </summary>
    public long ReuseWaits => (Source as ReuseConnectionSource)?.Waits ?? 0;

    /// <summary>Opens a connection and returns a <see cref="Session"/> that runs every call on it until disposed.</summary>
    /// <returns>The open session.</returns>
    public Session OpenSession()
    {
        ThrowIfDisposed();
        Pool.Telemetry.EnterFlow();
        var session = new Session(this);
        try
        {
            SyncPath.Done(session.OpenAsync(async: false, CancellationToken.None));
        }
        catch
        {
            session.Dispose();
            throw;
        }

        return session;
    }

    /// <summary>Opens a connection and returns a <see cref="Session"/> that runs every call on it until disposed.</summary>
    /// <param name="cancellationToken">Cancels the open.</param>
    /// <returns>The open session.</returns>
    public Task<Session> OpenSessionAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfDisposed();
        Pool.Telemetry.EnterFlow();
        return OpenSessionCoreAsync(cancellationToken);
    }

    private async Task<Session> OpenSessionCoreAsync(CancellationToken cancellationToken)
    {
        var session = new Session(this);
        try
        {
            await session.OpenAsync(async: true, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            await session.DisposeAsync().ConfigureAwait(false);
            throw;
        }

        return session;
    }

    /// <summary>
    /// Begins a <see cref="ConnectionScope"/> in the caller's flow: until it is disposed, this database's calls in the flow
    /// share one connection while they come back to back, and give it back to the pool after
    /// <see cref="OrseisOptions.ScopeIdleWindow"/> without a call.
    /// </summary>
    /// <returns>The scope; dispose it where the unit of work ends.</returns>
    public ConnectionScope BeginScope()
    {
        ThrowIfDisposed();
        return ConnectionScope.Begin(Pool, parks: Source is OpenPerCallSource, $"a call in a scope on '{PoolName}'");
    }

    /// <summary>
    /// A snapshot of this database's pool: connections in use and waiting, opens and commands, measured open and hold
    /// times, Little's-law pool-size advice, what the provider reports, and the recent detector findings. Also runs the
    /// pool-size and held-too-long detectors (when on), so calling it periodically is enough to get their findings.
    /// </summary>
    /// <returns>The report; its <see cref="Diagnostics.PoolReport.ToString"/> is readable text.</returns>
    public Diagnostics.PoolReport GetPoolReport() => Pool.Telemetry.CreateReport(Mode);

    /// <summary>Closes the shared connection (in ReuseConnection mode) and disposes the data source this database created.</summary>
    public void Dispose() => SyncPath.Block(DisposeAsync(async: false));

    /// <summary>Closes the shared connection (in ReuseConnection mode) and disposes the data source this database created.</summary>
    /// <returns>A task that completes when everything is closed.</returns>
    public ValueTask DisposeAsync() => DisposeAsync(async: true);

    private async ValueTask DisposeAsync(bool async)
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
            return;
        await Source.CloseAsync(async).ConfigureAwait(false);
        if (async)
            await Pool.DisposeAsync().ConfigureAwait(false);
        else
            SyncPath.Block(Pool.DisposeAsync());
    }

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);

    private static DbProviderFactory Check(DbProviderFactory factory, string connectionString)
    {
        ArgumentNullException.ThrowIfNull(factory);
        ArgumentException.ThrowIfNullOrWhiteSpace(connectionString);
        return factory;
    }
}
