using System.Collections.Concurrent;
using System.Data.Common;
using System.Diagnostics.CodeAnalysis;
using System.Diagnostics.Metrics;

namespace Orseis.Diagnostics;

/// <summary>
/// What a provider's own meter says about one pool, read in-process with a <see cref="MeterListener"/>: Npgsql's meter
/// <c>Npgsql</c> and MySqlConnector's <c>MySqlConnector</c> publish used/idle counts and a histogram of physical
/// connection creations (<c>create_time</c>) tagged with their pool name. Started only when detectors are on, because
/// listening turns the provider's instruments on. A count reported change by change (MySqlConnector's) is listened to
/// only once a pool asks for it (<see cref="DiagnosticsOptions.ProviderPoolCounts"/>): from then on every pool of that
/// provider in the process pays for it on each open and close, and only the pools that asked show it.
/// </summary>
internal sealed class ProviderPoolStats
{
    private static readonly ConcurrentDictionary<string, ProviderPoolStats> ByPoolName = new(StringComparer.Ordinal);
    private static readonly Lock StartLock = new();
    private static readonly Lock ChangeLock = new();
    private static readonly List<Instrument> ChangeCounters = [];
    private static MeterListener? _listener;
    private static ProviderPoolStats? _lastMatched;
    private static bool _countingChanges;
    private long _idle = -1;
    private long _used = -1;
    private long _creates;
    private double _createSeconds;

    private volatile string? _matchedName;
    private bool _wantsChanges;

    private ProviderPoolStats(string providerPoolName) => ProviderPoolName = providerPoolName;

    public string ProviderPoolName { get; }

    /// <summary>Idle connections in the provider's pool, if the provider reported any (and, for counts reported change by
    /// change, the pool asked for them).</summary>
    public long? Idle => Interlocked.Read(ref _idle) is >= 0 and var v ? v : null;

    /// <summary>Connections the provider counts as in use (by anyone sharing its pool), if reported (as <see cref="Idle"/>).</summary>
    public long? Used => Interlocked.Read(ref _used) is >= 0 and var v ? v : null;

    /// <summary>Physical connections the provider created (pool misses), if reported.</summary>
    public long? PhysicalConnects => _listener is null ? null : Interlocked.Read(ref _creates);

    public double CreateSeconds => Volatile.Read(ref _createSeconds);

    /// <summary>Starts listening (once per process) and returns the stats for <paramref name="source"/>'s pool, or null when the provider
    /// publishes none. <paramref name="countChanges"/>: also listen to counts reported change by change, for this pool.</summary>
    public static ProviderPoolStats? For(ProviderTraits traits, DbDataSource source, bool countChanges = false)
    {
        if (traits.PoolMeterName is null)
            return null;
        string name = PoolTag(traits, source);
        // Counts reported change by change are right only from the pool's first connection on: a pool counts them only when
        // the first Database over it asked, never from the middle of its life.
        ProviderPoolStats stats = ByPoolName.GetOrAdd(
            name, static (n, wants) => new ProviderPoolStats(n) { _wantsChanges = wants }, countChanges);
        EnsureListening();
        if (stats._wantsChanges) // a later Database asking for a pool already counted without is ignored: it turns nothing on
            CountChanges();
        return stats;
    }

    // Turns on, once, the counts reported change by change that were published but left off. Each instrument is enabled
    // once, here or by InstrumentPublished once the flag is set; outside the lock, so ChangeLock is never held while the
    // runtime's metrics code runs.
    private static void CountChanges()
    {
        Instrument[] published;
        lock (ChangeLock)
        {
            if (_countingChanges)
                return;
            _countingChanges = true; // instruments published from now on enable themselves
            published = [.. ChangeCounters];
        }

        foreach (Instrument instrument in published)
            _listener!.EnableMeasurementEvents(instrument, CountChangeKind);
    }

    /// <summary>
    /// The pool name the provider tags its measurements with. Npgsql: <c>NpgsqlDataSource.Name</c> (the connection string
    /// without password unless named). MySqlConnector: the <c>Application Name</c> when set, else the connection string
    /// as its builder normalises it, without password (a data source named with <c>UseName</c> is not matched). Read
    /// by name, since no provider is referenced.
    /// </summary>
    [UnconditionalSuppressMessage("Trimming", "IL2075", Justification =
        "Read by name from the provider's type: a member the trimmer removed reads as null, and what it gives" +
        " is left out, as for a provider without it.")]
    private static string PoolTag(ProviderTraits traits, DbDataSource source)
    {
        if (source.GetType().GetProperty("Name")?.GetValue(source) is string named)
            return named;
        if (!traits.TagsPoolWithNormalisedConnectionString)
            return source.ConnectionString;
        using DbConnection connection = source.CreateConnection();
        DbConnectionStringBuilder? builder = DbProviderFactories.GetFactory(connection)?.CreateConnectionStringBuilder();
        if (builder is null)
            return source.ConnectionString;
        builder.ConnectionString = source.ConnectionString;
        if (builder.TryGetValue("Application Name", out object? application) && application is string { Length: > 0 } applicationName)
            return applicationName;
        foreach (string key in (string[])["Password", "pwd"])
            builder.Remove(key);
        return builder.ConnectionString;
    }

    /// <summary>Reads the provider's observable instruments now. An instance method so that callers refresh only pools that have provider
    /// stats.</summary>
#pragma warning disable CA1822 // see above: called as ProviderPool?.Refresh()
    public void Refresh() => _listener?.RecordObservableInstruments();
#pragma warning restore CA1822

    private static void EnsureListening()
    {
        if (Volatile.Read(ref _listener) is not null)
            return;
        lock (StartLock)
        {
            if (_listener is not null)
                return;
            var listener = new MeterListener
            {
                InstrumentPublished = static (instrument, l) =>
                {
                    // The instrument's kind rides along as the listener's state: worked out once, not per measurement.
                    if (!ProviderTraits.IsPoolMeter(instrument.Meter.Name) || Kind(instrument) is not { } kind)
                        return;
                    if (ReferenceEquals(kind, CountChangeKind))
                    {
                        lock (ChangeLock)
                        {
                            ChangeCounters.Add(instrument);
                            if (!_countingChanges)
                                return;
                        }
                    }

                    l.EnableMeasurementEvents(instrument, kind);
                },
            };
            listener.SetMeasurementEventCallback<int>(static (_, v, tags, kind) => OnMeasurement(kind, v, tags));
            listener.SetMeasurementEventCallback<long>(static (_, v, tags, kind) => OnMeasurement(kind, v, tags));
            listener.SetMeasurementEventCallback<double>(static (_, v, tags, kind) => OnMeasurement(kind, v, tags));
            listener.SetMeasurementEventCallback<float>(static (_, v, tags, kind) => OnMeasurement(kind, v, tags));
            listener.Start();
            Volatile.Write(ref _listener, listener);
        }
    }

    // What a measurement is, worked out once per instrument and carried as the listener's state: a connection count by
    // state (Npgsql observes absolute counts; MySqlConnector's synchronous up-down counter reports each change, +1/-1),
    // or a physical connection's create time (a histogram, one measurement per connect).
    private static readonly object AbsoluteCountKind = new(), CountChangeKind = new(), CreateKind = new();

    private static object? Kind(Instrument instrument) => instrument.Name switch
    {
        "db.client.connection.count" or "db.client.connections.usage" => instrument.IsObservable ? AbsoluteCountKind : CountChangeKind,
        "db.client.connection.create_time" or "db.client.connection.npgsql.create_time" or "db.client.connections.create_time"
            => CreateKind,
        _ => null,
    };

    private static void Count(ref long field, bool absolute, long value)
    {
        if (absolute)
        {
            Interlocked.Exchange(ref field, value);
            return;
        }

        long seen, next;
        do
        {
            seen = Interlocked.Read(ref field);
            next = (seen < 0 ? 0 : seen) + value;
        }
        while (Interlocked.CompareExchange(ref field, next, seen) != seen);
    }

    // MySqlConnector records four counts per pooled open and close. Its tag keys and state values are string literals,
    // interned process-wide, so the usual path compares references only (by value when that finds nothing), and the
    // pool is found again without hashing its name (a connection string).
    private static void OnMeasurement(object? kind, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        (string? pool, object? state) = Tags(tags, byValue: false);
        if (pool is null || (state is null && !ReferenceEquals(kind, CreateKind)))
            (pool, state) = Tags(tags, byValue: true);
        if (pool is null || Matching(pool) is not { } stats)
            return;
        if (ReferenceEquals(kind, CreateKind))
        {
            Interlocked.Increment(ref stats._creates);
            lock (stats)
                stats._createSeconds += value;
            return;
        }

        bool absolute = ReferenceEquals(kind, AbsoluteCountKind);
        if (!absolute && !stats._wantsChanges)
            return;
        if (ReferenceEquals(state, "used"))
            Count(ref stats._used, absolute, (long)value);
        else if (ReferenceEquals(state, "idle"))
            Count(ref stats._idle, absolute, (long)value);
        else if (state is "used")
            Count(ref stats._used, absolute, (long)value);
        else if (state is "idle")
            Count(ref stats._idle, absolute, (long)value);
    }

    private static (string? Pool, object? State) Tags(ReadOnlySpan<KeyValuePair<string, object?>> tags, bool byValue)
    {
        const string PoolKey = "pool.name", SemanticPoolKey = "db.client.connection.pool.name";
        const string StateKey = "state", SemanticStateKey = "db.client.connection.state";
        string? pool = null;
        object? state = null;
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            string key = tag.Key;
            if (Is(key, PoolKey, SemanticPoolKey, byValue))
                pool = tag.Value as string;
            else if (Is(key, StateKey, SemanticStateKey, byValue))
                state = tag.Value;
        }

        return (pool, state);
    }

    private static bool Is(string key, string name, string semanticName, bool byValue) =>
        ReferenceEquals(key, name) || ReferenceEquals(key, semanticName) || (byValue && (key == name || key == semanticName));

    // A provider tags every measurement of a pool with the same string instance: the last pool matched is found again
    // by reference.
    private static ProviderPoolStats? Matching(string pool)
    {
        ProviderPoolStats? stats = Volatile.Read(ref _lastMatched);
        if (stats is not null && ReferenceEquals(stats._matchedName, pool))
            return stats;
        if (!ByPoolName.TryGetValue(pool, out stats))
            return null;
        stats._matchedName = pool;
        Volatile.Write(ref _lastMatched, stats);
        return stats;
    }
}
