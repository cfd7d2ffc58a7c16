using Orseis.Diagnostics;

namespace Orseis.Execution.Providers;

/// <summary>The known providers, one entry each: every fact Orseis holds about a provider is set here.</summary>
internal sealed partial class ProviderTraits
{
    /// <summary>The keys any provider might use for its pool size: for SQLite and providers Orseis does not know.</summary>
    private static readonly string[] AnyPoolSizeKeys = ["Max Pool Size", "Maximum Pool Size", "MaxPoolSize"];

    /// <summary>The source of OpenTelemetry's SqlClient instrumentation (SqlClient itself traces through DiagnosticListener).</summary>
    private const string SqlClientInstrumentation = "OpenTelemetry.Instrumentation.SqlClient";

    private const string NoPoolData = "Orseis reports what it measures itself.";

    /// <summary>The server keys of both SqlClients, which read the same ones.</summary>
    private static readonly ServerKeys SqlServerKeys = new(
        ["Data Source", "Server", "Address", "Addr", "Network Address"], ["Initial Catalog", "Database"], ProviderInfo.SqlServerHost);

    /// <summary>The server keys of both MySQL providers, which read the same ones.</summary>
    private static readonly ServerKeys MySqlServerKeys = new(
        ["Server", "Host", "Data Source", "DataSource", "Address", "Addr", "Network Address"], ["Database", "Initial Catalog"]);

    /// <summary>Microsoft.Data.Sqlite: parameters named with their prefix, typed getters that throw on NULL, no pool bound.</summary>
    public static readonly ProviderTraits MicrosoftSqlite = new(
        "Microsoft.Data.Sqlite", "sqlite", AnyPoolSizeKeys, null,
        sendsFrameworkType: SqliteSends,
        transactionQuestion: TransactionQuestion.Sqlite,
        knowsDateAndTimeOnly: true,
        prefixedParameterNames: true,
        typedGettersRefuseNull: true,
        neverEnlistsBecause: "Microsoft.Data.Sqlite connections never join a TransactionScope",
        poolVisibility: "Microsoft.Data.Sqlite publishes no pool data and has no Max Pool Size; " + NoPoolData);

    /// <summary>System.Data.SQLite, trusted like Microsoft.Data.Sqlite to refuse NULL in its typed getters.</summary>
    public static readonly ProviderTraits SystemSqlite = new(
        "System.Data.SQLite", "sqlite", AnyPoolSizeKeys, null,
        sendsFrameworkType: SqliteSends,
        transactionQuestion: TransactionQuestion.Sqlite,
        typedGettersRefuseNull: true,
        poolVisibility: "System.Data.SQLite publishes no pool data Orseis reads; " + NoPoolData);

    /// <summary>Npgsql: meter <c>Npgsql</c>; keys as <c>NpgsqlConnectionStringBuilder</c> names them.</summary>
    public static readonly ProviderTraits Npgsql = new(
        "Npgsql", "postgresql", ["Maximum Pool Size", "MaxPoolSize"], 100,
        sendsFrameworkType: NpgsqlSends,
        transactionQuestion: TransactionQuestion.Postgres,
        dialect: SqlDialect.NestedComments,
        enlistKeys: ["Enlist"],
        knowsDateAndTimeOnly: true,
        typedGettersRefuseNull: true,
        poolMeterName: "Npgsql",
        ownInstruments: ProviderInstruments.Pool | ProviderInstruments.OperationDuration,
        spanSource: "Npgsql",
        readOpenTimeout: OpenFailure.Npgsql,
        couldNotConnect: NpgsqlCouldNotConnect,
        serverErrorType: "Npgsql.PostgresException",
        poolVisibility: "Npgsql publishes pool data on its meter 'Npgsql': " +
            "idle/used connections and physical connection creations are read in-process.",
        serverKeys: new(["Host", "Server"], ["Database", "DB"], ProviderInfo.PostgresHost));

    /// <summary>Microsoft.Data.SqlClient: its command spans come from OpenTelemetry's SqlClient instrumentation.</summary>
    public static readonly ProviderTraits MicrosoftSqlClient = new(
        "Microsoft.Data.SqlClient", "microsoft.sql_server", ["Max Pool Size"], 100,
        sendsFrameworkType: SqlClientSends,
        transactionQuestion: TransactionQuestion.SqlServer,
        dialect: SqlDialect.NestedComments,
        enlistKeys: ["Enlist"],
        knowsDateAndTimeOnly: true,
        spanSource: SqlClientInstrumentation,
        readOpenTimeout: static error => OpenFailure.SqlClient(error, "Microsoft.Data.SqlClient"),
        errorNumberType: "Microsoft.Data.SqlClient.SqlException",
        connectionIdProperty: "ClientConnectionId",
        poolVisibility: "SqlClient publishes pool data only as EventCounters (Microsoft.Data.SqlClient.EventSource); " + NoPoolData,
        serverKeys: SqlServerKeys);

    /// <summary>System.Data.SqlClient, which predates <see cref="DateOnly"/> and <see cref="TimeOnly"/>.</summary>
    public static readonly ProviderTraits SystemSqlClient = new(
        "System.Data.SqlClient", "microsoft.sql_server", ["Max Pool Size"], 100,
        sendsFrameworkType: SqlClientSends,
        transactionQuestion: TransactionQuestion.SqlServer,
        dialect: SqlDialect.NestedComments,
        enlistKeys: ["Enlist"],
        spanSource: SqlClientInstrumentation,
        readOpenTimeout: static error => OpenFailure.SqlClient(error, "System.Data.SqlClient"),
        errorNumberType: "System.Data.SqlClient.SqlException",
        connectionIdProperty: "ClientConnectionId",
        poolVisibility: "SqlClient publishes pool data only as EventCounters (System.Data.SqlClient's EventSource); " + NoPoolData,
        serverKeys: SqlServerKeys);

    /// <summary>MySqlConnector: meter <c>MySqlConnector</c>; keys as <c>MySqlConnectionStringBuilder</c> names them.</summary>
    public static readonly ProviderTraits MySqlConnector = new(
        "MySqlConnector", "mysql", ["Maximum Pool Size", "Max Pool Size", "MaximumPoolSize", "MaxPoolSize"], 100,
        sendsFrameworkType: MySqlConnectorSends,
        transactionQuestion: TransactionQuestion.MySql,
        dialect: SqlDialect.BackslashEscapes | SqlDialect.MySqlComments,
        enlistKeys: ["AutoEnlist", "Auto Enlist"],
        knowsDateAndTimeOnly: true,
        poolMeterName: "MySqlConnector",
        ownInstruments: ProviderInstruments.Pool,
        spanSource: "MySqlConnector",
        readOpenTimeout: OpenFailure.MySqlConnector,
        couldNotConnect: MySqlConnectorCouldNotConnect,
        errorNumberType: "MySqlConnector.MySqlException",
        connectionIdProperty: "ServerThread",
        tagsPoolWithNormalisedConnectionString: true,
        poolVisibility: "MySqlConnector publishes pool data on its meter 'MySqlConnector': " +
            "physical connection creations are read in-process, " +
            "idle/used connections too with DiagnosticsOptions.ProviderPoolCounts " +
            "(it reports them change by change, which costs every open).",
        serverKeys: MySqlServerKeys);

    /// <summary>Oracle's MySql.Data (8.0), which predates <see cref="DateOnly"/> and <see cref="TimeOnly"/>.</summary>
    public static readonly ProviderTraits MySqlData = new(
        "MySql.Data", "mysql", ["Maximum Pool Size", "Max Pool Size", "MaximumPoolSize", "MaxPoolSize"], 100,
        sendsFrameworkType: MySqlDataSends,
        transactionQuestion: TransactionQuestion.MySql,
        dialect: SqlDialect.BackslashEscapes | SqlDialect.MySqlComments,
        enlistKeys: ["AutoEnlist", "Auto Enlist"],
        asyncRunsSynchronously: true,
        readOpenTimeout: OpenFailure.MySqlData,
        couldNotConnect: MySqlDataCouldNotConnect,
        errorNumberType: "MySql.Data.MySqlClient.MySqlException",
        connectionIdProperty: "ServerThread",
        poolVisibility: "MySql.Data publishes no pool data (no meter, no counters Orseis reads); " + NoPoolData,
        serverKeys: MySqlServerKeys);

    /// <summary>
    /// A provider Orseis does not know: nothing is assumed; its open failures are read from their messages
    /// (<see cref="OpenFailure"/>).
    /// </summary>
    public static readonly ProviderTraits Other = new(
        "", "other_sql", AnyPoolSizeKeys, null,
        readOpenTimeout: OpenFailure.ByMessage);

    /// <summary>
    /// Namespaces whose stack frames are never where a user's code called (<see cref="Diagnostics.CallSites"/>): the
    /// runtime's, every known provider's, and those of providers Orseis has no entry for.
    /// </summary>
    public static readonly string[] FrameNamespaces =
    [
        "System", "Microsoft", "MySqlConnector", "MySql.", "Npgsql", "Oracle.", "IBM.", "FirebirdSql", "Devart", "Snowflake", "DuckDB",
    ];

    private static readonly ProviderTraits[] Known =
        [MicrosoftSqlite, SystemSqlite, Npgsql, MicrosoftSqlClient, SystemSqlClient, MySqlConnector, MySqlData];
}
