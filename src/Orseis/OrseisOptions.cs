namespace Orseis;

/// <summary>Settings of a <see cref="Database"/>. Validated when the database is created.</summary>
public sealed class OrseisOptions
{
    /// <summary>How connections are acquired for calls made on the database. Default: <see cref="ExecutionMode.OpenPerCall"/>.</summary>
    public ExecutionMode Mode { get => _mode; set => _mode = value; }

    /// <summary>
    /// Command timeout for every call that does not give its own; <see langword="null"/> keeps the provider's default
    /// (usually 30 s). <see cref="Timeout.InfiniteTimeSpan"/> or <see cref="TimeSpan.Zero"/> means no timeout.
    /// </summary>
    public TimeSpan? CommandTimeout { get => _commandTimeout; set => _commandTimeout = value; }

    /// <summary>
    /// In <see cref="ExecutionMode.ReuseConnection"/>, how long a call waits for the shared connection while another
    /// flow uses it before failing with a clear error. Default: 30 seconds.
    /// </summary>
    public TimeSpan ReuseWaitTimeout { get => _reuseWaitTimeout; set => _reuseWaitTimeout = value; }

    /// <summary>
    /// How long a <see cref="ConnectionScope"/> keeps its parked connection without a call before giving it back to the
    /// pool. Back-to-back calls come within microseconds of each other; work between them that is not the database's
    /// (an HTTP call, a delay) usually takes longer than this, and the connection is back in the pool meanwhile. The
    /// connection goes back between this and this plus a millisecond after the last call. Default: 2 ms; at most 10 s.
    /// </summary>
    public TimeSpan ScopeIdleWindow { get => _scopeIdleWindow; set => _scopeIdleWindow = value; }

    /// <summary>
    /// The name this database's pool carries in metrics, events and reports. Default: the provider's system name with
    /// the server and database taken from the connection string (never the user or password).
    /// </summary>
    public string? PoolName { get => _poolName; set => _poolName = value; }

    /// <summary>Pool diagnostics: events, metrics and detectors. See <see cref="Diagnostics.DiagnosticsOptions"/>.</summary>
    public Diagnostics.DiagnosticsOptions Diagnostics { get => _diagnostics; set => _diagnostics = value; }

    /// <summary>
    /// What a NULL read into a member that cannot hold NULL (an <c>int</c>, a <c>bool</c>, a struct) does.
    /// <see langword="false"/> (the default): a <see cref="MappingException"/> naming the column and the member, so a
    /// NULL never passes for a real 0. <see langword="true"/>, as Dapper does: the member is left as the object was
    /// constructed (its initializer's value, or its default), and a constructor parameter, value tuple element, single-column
    /// value or <c>Scalar&lt;T&gt;</c> gets <see langword="default"/>. Members that can hold NULL read it as null either way.
    /// </summary>
    public bool NullKeepsDefault { get; set; }

    /// <summary>
    /// Opt-in retries of what is safe to run again: opens that failed to connect, and reads whose connection broke
    /// outside a transaction. Off by default. See <see cref="OrseisRetryOptions"/>.
    /// </summary>
    public OrseisRetryOptions Retry { get => _retry; set => _retry = value; }

    /// <summary>The retries built from <see cref="Retry"/> by <see cref="Validate"/>; null when they are off.</summary>
    internal Execution.CallRetries? Retries => _retries;

    private readonly Dictionary<Type, Mapping.ITypeHandler> _typeHandlers = [];

    /// <summary>
    /// Registers how this database sends and reads <typeparamref name="T"/> (and <c>Nullable&lt;T&gt;</c>): for
    /// parameters, list elements, members, scalars and multi-mapped rows. Handlers belong to the database created with
    /// these options (later changes to the options do not reach it), so two databases can read the same type differently.
    /// </summary>
    /// <typeparam name="T">The type handled; not a <c>Nullable&lt;&gt;</c> (the handler covers it).</typeparam>
    /// <param name="handler">The handler.</param>
    /// <returns>These options, for chaining.</returns>
    /// <exception cref="ArgumentException"><typeparamref name="T"/> is nullable, or already has a handler.</exception>
    public OrseisOptions AddTypeHandler<T>(TypeHandler<T> handler)
    {
        ArgumentNullException.ThrowIfNull(handler);
        if (Nullable.GetUnderlyingType(typeof(T)) is { } inner)
            throw new ArgumentException($"Register the handler for {inner.Name}, not Nullable<{inner.Name}>: a handler of {inner.Name} also reads and sends {inner.Name}?.", nameof(handler));
        if (!_typeHandlers.TryAdd(typeof(T), handler))
            throw new ArgumentException($"{typeof(T).Name} already has a type handler ({_typeHandlers[typeof(T)].GetType().Name}); register one handler per type.", nameof(handler));
        return this;
    }

    /// <summary>The registered handlers, by type.</summary>
    internal IReadOnlyDictionary<Type, Mapping.ITypeHandler> TypeHandlers => _typeHandlers;

    // Validate reads the fields: every database validates these settings, and a property read there is a method the JIT
    // compiles at the process's start even when nothing else reads it (issue 44). Mode is checked by value for the same
    // reason: Enum.IsDefined<ExecutionMode> is a generic method of its own to compile.
    private ExecutionMode _mode = ExecutionMode.OpenPerCall;
    private TimeSpan? _commandTimeout;
    private TimeSpan _reuseWaitTimeout = TimeSpan.FromSeconds(30);
    private TimeSpan _scopeIdleWindow = TimeSpan.FromMilliseconds(2);
    private string? _poolName;
    private Diagnostics.DiagnosticsOptions _diagnostics = new();
    private OrseisRetryOptions _retry = new();
    private Execution.CallRetries? _retries;

    internal OrseisOptions Validate()
    {
        if (_mode is not (ExecutionMode.OpenPerCall or ExecutionMode.ReuseConnection))
            throw Invalid(nameof(Mode), "has the undefined value ", (int)_mode, "; use OpenPerCall or ReuseConnection.");
        if (_commandTimeout is { } t && t < TimeSpan.Zero && t != Timeout.InfiniteTimeSpan)
            throw Invalid(nameof(CommandTimeout), "must be zero or positive (or Timeout.InfiniteTimeSpan), not ", t, ".");
        if (_reuseWaitTimeout <= TimeSpan.Zero && _reuseWaitTimeout != Timeout.InfiniteTimeSpan)
            throw Invalid(nameof(ReuseWaitTimeout), "must be positive (or Timeout.InfiniteTimeSpan), not ", _reuseWaitTimeout, ".");
        if (_scopeIdleWindow <= TimeSpan.Zero || _scopeIdleWindow > TimeSpan.FromSeconds(10))
        {
            throw Invalid(nameof(ScopeIdleWindow), "must be more than zero and at most 10 s, not ", _scopeIdleWindow,
                "; for a connection held longer, use a Session.");
        }
        if (_poolName is { Length: 0 })
            throw new ArgumentException("OrseisOptions.PoolName must not be empty; leave it null for the default name.", nameof(PoolName));
        _diagnostics.Validate();
        ArgumentNullException.ThrowIfNull(_retry, nameof(Retry));
        _retries = _retry.Validate() ? new Execution.CallRetries(_retry) : null;
        return this;
    }

    /// <summary>"OrseisOptions.{setting} {problem}{value}{after}", naming the setting: made out of <see cref="Validate"/>, which
    /// the JIT compiles whole at every process's first database, messages included.</summary>
    private static ArgumentException Invalid<T>(string setting, string problem, T value, string after) =>
        new($"OrseisOptions.{setting} {problem}{value}{after}", setting);
}
