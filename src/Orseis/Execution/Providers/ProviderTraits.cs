using System.Collections.Concurrent;
using System.Data.Common;
using System.Globalization;
using Orseis.Diagnostics;

namespace Orseis.Execution.Providers;

/// <summary>
/// What Orseis knows about one ADO.NET provider, worked out once from the namespace of its types (no provider package is
/// referenced) and then read everywhere: its OpenTelemetry <c>db.system.name</c>, how its connection string spells the
/// pool size and what it defaults to, its parameter quirks, how its server reads SQL text (<see cref="Dialect"/>), how to
/// read its open failures and error numbers, what its pool publishes, whether it joins a <c>TransactionScope</c> and
/// which connection string keys name the server. Every provider difference is a member here and each provider one entry
/// (<c>ProviderTraits.Providers.cs</c>): no other code switches on a provider's name. A <see cref="PoolContext"/> takes its
/// traits when it is created; code that sees only a command or a reader finds the same instance by type.
/// </summary>
/// <remarks>
/// Broken connections and cancellations need no trait: a failure that left the connection closed is a broken connection
/// whatever the provider (<see cref="ConnectionFailures"/>), an <see cref="IOException"/> under an open failure is a
/// connection that broke while opening (<see cref="OpenFailure"/>), and a failure after the caller's token was cancelled
/// is the provider's report of that cancellation (<see cref="Cancellation"/>). The integration tests check these on every
/// provider.
/// </remarks>
internal sealed partial class ProviderTraits
{
    private static readonly ConcurrentDictionary<Type, ProviderTraits> ByType = new();

    private static volatile TypeTraits? _lastCommand;

    /// <summary>
    /// One provider's entry: a fact not given is the one assumed of a provider Orseis does not know. The facts are
    /// readonly fields set here rather than properties set by an initializer: the table is built at the first
    /// <c>new Database</c>, and each property accessor run there is a method the JIT compiles at the process's start
    /// (issue 44: 33 of them in the cold-start probe).
    /// </summary>
    private ProviderTraits(
        string rootNamespace,
        string systemName,
        string[] poolSizeKeys,
        int? defaultMaxPoolSize,
        Func<Type, bool>? sendsFrameworkType = null,
        TransactionQuestion transactionQuestion = TransactionQuestion.None,
        SqlDialect dialect = default,
        bool knowsDateAndTimeOnly = false,
        bool prefixedParameterNames = false,
        bool asyncRunsSynchronously = false,
        bool typedGettersRefuseNull = false,
        string? spanSource = null,
        string? poolMeterName = null,
        ProviderInstruments ownInstruments = default,
        string[]? enlistKeys = null,
        Func<Exception, OpenTimeout>? readOpenTimeout = null,
        Func<Exception, bool>? couldNotConnect = null,
        string poolVisibility = UnknownPoolVisibility,
        string? errorNumberType = null,
        string? serverErrorType = null,
        string? connectionIdProperty = null,
        string? neverEnlistsBecause = null,
        bool tagsPoolWithNormalisedConnectionString = false,
        ServerKeys? serverKeys = null)
    {
        RootNamespace = rootNamespace;
        SystemName = systemName;
        PoolSizeKeys = poolSizeKeys;
        DefaultMaxPoolSize = defaultMaxPoolSize;
        SendsFrameworkType = sendsFrameworkType ?? AnyFrameworkType;
        TransactionQuestion = transactionQuestion;
        Dialect = dialect;
        KnowsDateAndTimeOnly = knowsDateAndTimeOnly;
        PrefixedParameterNames = prefixedParameterNames;
        AsyncRunsSynchronously = asyncRunsSynchronously;
        TypedGettersRefuseNull = typedGettersRefuseNull;
        SpanSource = spanSource;
        PoolMeterName = poolMeterName;
        OwnInstruments = ownInstruments;
        EnlistKeys = enlistKeys;
        ReadOpenTimeout = readOpenTimeout ?? NoOpenTimeout;
        CouldNotConnect = couldNotConnect ?? NeverCouldNotConnect;
        PoolVisibility = poolVisibility;
        ErrorNumberType = errorNumberType;
        ServerErrorType = serverErrorType ?? errorNumberType;
        ConnectionIdProperty = connectionIdProperty;
        NeverEnlistsBecause = neverEnlistsBecause;
        TagsPoolWithNormalisedConnectionString = tagsPoolWithNormalisedConnectionString;
        ServerKeys = serverKeys;
    }

    /// <summary>What Orseis can see of the pool of a provider it does not know.</summary>
    private const string UnknownPoolVisibility =
        "This provider publishes no pool data Orseis knows; Orseis reports what it measures itself.";

    /// <summary>A provider Orseis does not know: none of its open failures is told a timeout by its type.</summary>
    private static OpenTimeout NoOpenTimeout(Exception error) => OpenTimeout.None;

    /// <summary>The namespace the provider's types live in (or under).</summary>
    public readonly string RootNamespace;

    /// <summary>The OpenTelemetry <c>db.system.name</c>.</summary>
    public readonly string SystemName;

    /// <summary>The connection string keys that set the pool's maximum size, as this provider spells them.</summary>
    public readonly IReadOnlyList<string> PoolSizeKeys;

    /// <summary>The provider's documented Max Pool Size when the connection string sets none; null where there is no bound.</summary>
    public readonly int? DefaultMaxPoolSize;

    /// <summary>
    /// Takes <see cref="DateOnly"/> and <see cref="TimeOnly"/> parameter values; other providers get a date-typed
    /// <see cref="DateTime"/> and a <see cref="TimeSpan"/> instead (they would otherwise send culture-formatted text).
    /// </summary>
    public readonly bool KnowsDateAndTimeOnly;

    /// <summary>How the provider's server reads SQL text where servers differ (<see cref="SqlLexer"/>).</summary>
    public readonly SqlDialect Dialect;

    /// <summary>
    /// Gets a member's parameter under the name the SQL writes, prefix included (<c>@Id</c>): SQLite finds that with one
    /// lookup, while a bare <c>Id</c> is looked up under each of <c>@</c>, <c>$</c> and <c>:</c>, a string built for each.
    /// </summary>
    public readonly bool PrefixedParameterNames;

    /// <summary>
    /// The provider's async methods do their I/O synchronously on the calling thread (MySql.Data, as its own
    /// documentation and MySqlConnector's comparison say): an async call through it holds a pool thread like a sync one.
    /// </summary>
    public readonly bool AsyncRunsSynchronously;

    /// <summary>Typed getters throw on NULL instead of returning a default (checked by the tests for SQLite and Npgsql).</summary>
    public readonly bool TypedGettersRefuseNull;

    /// <summary>
    /// The <see cref="System.Diagnostics.ActivitySource"/> that records the provider's command spans, if any: while the
    /// application records it, Orseis' call span is Internal (<see cref="CallSpans.StartCall"/>).
    /// </summary>
    public readonly string? SpanSource;

    /// <summary>The name of the meter on which the provider publishes its pool's counts, if it has one.</summary>
    public readonly string? PoolMeterName;

    /// <summary>
    /// The conventional instruments the provider's meter publishes itself: Orseis publishes its own figures for them under
    /// <c>orseis.*</c> names (<see cref="OrseisMetrics"/>).
    /// </summary>
    public readonly ProviderInstruments OwnInstruments;

    /// <summary>
    /// The connection string keys that turn joining an ambient <c>TransactionScope</c> on or off (on by default where
    /// there are any); null for a provider whose connections never join one, or that Orseis does not know.
    /// </summary>
    public readonly IReadOnlyList<string>? EnlistKeys;

    /// <summary>
    /// How to ask the server whether a transaction still stands after one of its statements failed
    /// (<see cref="ServerTransactions"/>).
    /// </summary>
    public readonly TransactionQuestion TransactionQuestion;

    /// <summary>Reads what kind of timeout an open failure of this provider is (one of <see cref="OpenFailure"/>'s readers).</summary>
    public readonly Func<Exception, OpenTimeout> ReadOpenTimeout;

    /// <summary>What Orseis can and cannot see of the provider's own pool, said in the pool's report.</summary>
    public readonly string PoolVisibility;

    /// <summary>
    /// The full name of the provider's exception type whose <c>int Number</c> is the server's error number, the
    /// OpenTelemetry status code of MySQL and SQL Server (<see cref="DbErrorType"/>); null where the SQLSTATE is.
    /// </summary>
    public readonly string? ErrorNumberType;

    /// <summary>
    /// The full name of the provider's exception type that carries the server's own error (its number, or PostgreSQL's
    /// SQLSTATE): <see cref="ErrorNumberType"/> where there is one. <see cref="ServerTransactions"/> reads it by
    /// <see cref="TransactionQuestion"/>.
    /// </summary>
    public readonly string? ServerErrorType;

    /// <summary>
    /// The public property of an open connection that names its physical connection on the server (MySQL's thread id,
    /// SQL Server's <c>ClientConnectionId</c>), for counting new connections where the provider publishes no pool meter
    /// (<see cref="Diagnostics.Detectors.PhysicalConnections"/>); null where none is known.
    /// </summary>
    public readonly string? ConnectionIdProperty;

    /// <summary>
    /// The known provider whose <see cref="ServerErrorType"/> <paramref name="error"/> is (or derives from); null for none.
    /// </summary>
    public static ProviderTraits? OwnerOfServerError(Exception error)
    {
        foreach (ProviderTraits traits in Known)
        {
            if (traits.ServerErrorType is { } type && ProviderErrors.IsType(error, type))
                return traits;
        }

        return null;
    }

    /// <summary>
    /// Why the provider's connections never join a <c>TransactionScope</c>, when that is known (<see cref="AmbientTransactions"/>).
    /// </summary>
    public readonly string? NeverEnlistsBecause;

    /// <summary>
    /// The provider tags its pool measurements with the connection string as its builder normalises it, password removed,
    /// or the <c>Application Name</c> (MySqlConnector), rather than a data source's <c>Name</c> or the string as given.
    /// </summary>
    public readonly bool TagsPoolWithNormalisedConnectionString;

    /// <summary>The connection string keys that name the server and the database, for OpenTelemetry; null where none do (SQLite).</summary>
    public readonly ServerKeys? ServerKeys;

    /// <summary>The traits of the provider that defines <paramref name="providerType"/> (or one of its base types).</summary>
    public static ProviderTraits For(Type providerType) => ByType.GetOrAdd(providerType, Find);

    /// <summary>The traits of <paramref name="command"/>'s provider, found again without a lookup when the type repeats.</summary>
    public static ProviderTraits Of(DbCommand command)
    {
        Type type = command.GetType();
        TypeTraits? last = _lastCommand;
        if (last is not null && last.Type == type)
            return last.Traits;
        ProviderTraits traits = For(type);
        _lastCommand = new TypeTraits(type, traits);
        return traits;
    }

    /// <summary>
    /// Max Pool Size from the connection string (<see cref="PoolSizeKeys"/>), else <see cref="DefaultMaxPoolSize"/>; null
    /// when pooling is off, the string cannot be read, or there is no bound.
    /// </summary>
    public int? MaxPoolSize(string? connectionString)
    {
        var builder = new DbConnectionStringBuilder();
        try
        {
            builder.ConnectionString = connectionString ?? "";
        }
        catch (ArgumentException)
        {
            return null;
        }

        if (First(builder, PoolingKey) is { } pooling && bool.TryParse(pooling, out bool on) && !on)
            return null;
        if (First(builder, PoolSizeKeys) is { } text &&
            int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out int max) && max > 0)
        {
            return max;
        }

        return DefaultMaxPoolSize;
    }

    // An array, not a collection expression typed IReadOnlyList: that is a list type the compiler writes into Orseis, whose
    // methods the JIT compiles at every process's first database (issue 44).
    private static readonly string[] PoolingKey = ["Pooling"];

    private static string? First(DbConnectionStringBuilder builder, IReadOnlyList<string> keys)
    {
        foreach (string key in keys)
        {
            if (builder.TryGetValue(key, out object? value) && value?.ToString() is { Length: > 0 } text)
                return text;
        }

        return null;
    }

    /// <summary>
    /// The first known provider whose <see cref="SystemName"/> is <paramref name="systemName"/>, or <see cref="Other"/>: for
    /// facts both providers of one system share (MySqlConnector and MySql.Data read the same server keys).
    /// </summary>
    public static ProviderTraits OfSystem(string systemName)
    {
        foreach (ProviderTraits traits in Known)
        {
            if (traits.SystemName == systemName)
                return traits;
        }

        return Other;
    }

    /// <summary>True for the name of a meter on which a known provider publishes its pool's counts.</summary>
    public static bool IsPoolMeter(string meterName)
    {
        foreach (ProviderTraits traits in Known)
        {
            if (traits.PoolMeterName == meterName)
                return true;
        }

        return false;
    }

    private static ProviderTraits Find(Type providerType)
    {
        for (Type? type = providerType; type is not null; type = type.BaseType)
        {
            string ns = type.Namespace ?? "";
            foreach (ProviderTraits traits in Known)
            {
                if (ns.StartsWith(traits.RootNamespace, StringComparison.Ordinal) &&
                    (ns.Length == traits.RootNamespace.Length || ns[traits.RootNamespace.Length] == '.'))
                {
                    return traits;
                }
            }
        }

        return Other;
    }

    private sealed record TypeTraits(Type Type, ProviderTraits Traits);
}
