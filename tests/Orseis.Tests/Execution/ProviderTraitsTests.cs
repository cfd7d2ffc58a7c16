using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Reflection;
using Microsoft.Data.Sqlite;
using Orseis.Diagnostics;
using Orseis.Execution;

namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="ProviderTraits"/>: which provider a type belongs to (by namespace, its own or a base type's), what is known
/// of it, and what its open failures mean, read from real provider exceptions: thrown by the provider itself against a
/// socket that never answers, or built through the provider's own constructors where no server is needed to see them.
/// </summary>
public sealed class ProviderTraitsTests
{
    [Theory]
    [InlineData(typeof(SqliteConnection), "sqlite")]
    [InlineData(typeof(System.Data.SQLite.Stand.In), "sqlite")]
    [InlineData(typeof(Npgsql.Stand.In), "postgresql")]
    [InlineData(typeof(Microsoft.Data.SqlClient.Stand.In), "microsoft.sql_server")]
    [InlineData(typeof(System.Data.SqlClient.Stand.In), "microsoft.sql_server")]
    [InlineData(typeof(MySqlConnector.Stand.In), "mysql")]
    [InlineData(typeof(MySql.Data.Stand.In), "mysql")]
    [InlineData(typeof(ProviderTraitsTests), "other_sql")]
    [InlineData(typeof(GlobalNamespaceType), "other_sql")]
    public void The_system_name_comes_from_the_provider_namespace(Type type, string expected) =>
        Assert.Equal(expected, ProviderTraits.For(type).SystemName);

    [Theory]
    [InlineData(typeof(SqliteDataReader), true)]
    [InlineData(typeof(Npgsql.Stand.In), true)]
    [InlineData(typeof(MySqlConnector.Stand.In), false)]
    [InlineData(typeof(Microsoft.Data.SqlClient.Stand.In), false)]
    [InlineData(typeof(ProviderTraitsTests), false)]
    public void Only_sqlite_and_npgsql_getters_are_trusted_to_refuse_null(Type type, bool expected) =>
        Assert.Equal(expected, ProviderTraits.For(type).TypedGettersRefuseNull);

    [Theory]
    [InlineData(typeof(SqliteCommand), true)]
    [InlineData(typeof(Npgsql.Stand.In), true)]
    [InlineData(typeof(Microsoft.Data.SqlClient.Stand.In), true)]
    [InlineData(typeof(MySqlConnector.Stand.In), true)]
    [InlineData(typeof(MySql.Data.Stand.In), false)]
    [InlineData(typeof(System.Data.SqlClient.Stand.In), false)]
    [InlineData(typeof(System.Data.SQLite.Stand.In), false)]
    [InlineData(typeof(GlobalNamespaceType), false)]
    public void DateOnly_and_TimeOnly_are_known_to_the_recent_providers_only(Type type, bool expected) =>
        Assert.Equal(expected, ProviderTraits.For(type).KnowsDateAndTimeOnly);

    /// <summary>The real provider types Orseis is handed (a factory, a data source, a command) find the same traits.</summary>
    [Fact]
    public void Each_real_provider_type_finds_its_traits_and_a_subclass_finds_its_base_s()
    {
        Assert.Same(ProviderTraits.MicrosoftSqlite, ProviderTraits.For(typeof(SqliteFactory)));
        Assert.Same(ProviderTraits.Npgsql, ProviderTraits.For(typeof(Npgsql.NpgsqlFactory)));
        Assert.Same(ProviderTraits.Npgsql, ProviderTraits.For(typeof(Npgsql.NpgsqlDataSource)));
        Assert.Same(ProviderTraits.MySqlConnector, ProviderTraits.For(typeof(MySqlConnector.MySqlConnectorFactory)));
        Assert.Same(ProviderTraits.MySqlConnector, ProviderTraits.For(typeof(MySqlConnector.MySqlDataSource)));
        Assert.Same(ProviderTraits.MySqlData, ProviderTraits.For(typeof(MySql.Data.MySqlClient.MySqlClientFactory)));
        Assert.Same(ProviderTraits.MicrosoftSqlClient, ProviderTraits.For(typeof(Microsoft.Data.SqlClient.SqlClientFactory)));
        Assert.Same(ProviderTraits.MicrosoftSqlite, ProviderTraits.For(typeof(SqliteCommandOfMine)));
        Assert.Same(ProviderTraits.Other, ProviderTraits.For(typeof(System.Data.Common.DbCommand)));
    }

    [Fact]
    public void Only_sqlite_takes_prefixed_names_only_npgsql_and_mysqlconnector_publish_a_pool_meter_and_only_mysql_data_blocks_in_async()
    {
        ProviderTraits[] all =
        [
            ProviderTraits.MicrosoftSqlite, ProviderTraits.SystemSqlite, ProviderTraits.Npgsql, ProviderTraits.MicrosoftSqlClient,
            ProviderTraits.SystemSqlClient, ProviderTraits.MySqlConnector, ProviderTraits.MySqlData, ProviderTraits.Other,
        ];
        Assert.Same(ProviderTraits.MicrosoftSqlite, Assert.Single(all, t => t.PrefixedParameterNames));
        Assert.Equal(new[] { "Npgsql", "MySqlConnector" }, all.Select(t => t.PoolMeterName).OfType<string>());
        Assert.Same(ProviderTraits.MySqlData, Assert.Single(all, t => t.AsyncRunsSynchronously));
        using var command = new SqliteCommandOfMine();
        Assert.True(ProviderTraits.Of(command).PrefixedParameterNames);
    }

    [Theory]
    [InlineData("Npgsql", "Host=h;Max Pool Size=7", 7)]
    [InlineData("Npgsql", "Host=h;Maximum Pool Size=9", 9)]
    [InlineData("MySqlConnector", "Server=h;MaxPoolSize=3", 3)]
    [InlineData("MySqlData", "Server=h;maximumpoolsize=4", 4)]
    [InlineData("MySqlConnector", "Server=h;Pooling=true;Max Pool Size=5", 5)]
    [InlineData("Npgsql", "Host=h", 100)]
    [InlineData("MySqlConnector", "Server=h", 100)]
    [InlineData("MySqlData", "Server=h", 100)]
    [InlineData("MicrosoftSqlClient", "Server=h", 100)]
    [InlineData("MicrosoftSqlClient", "Server=h;Max Pool Size=6", 6)]
    [InlineData("Npgsql", "Host=h;Max Pool Size=0", 100)]
    [InlineData("Npgsql", "Host=h;Max Pool Size=many", 100)]
    [InlineData("Npgsql", "Host=h;Pooling=false;Max Pool Size=7", null)]
    [InlineData("Npgsql", "Host=h;Pooling=nope", 100)]
    [InlineData("MicrosoftSqlite", "Data Source=a.db", null)]
    [InlineData("MicrosoftSqlite", "Data Source=a.db;Max Pool Size=4", 4)]
    [InlineData("Other", "Server=h", null)]
    [InlineData("Other", "Server=h;Max Pool Size=8", 8)]
    [InlineData("Npgsql", "not = a ; = valid", null)]
    public void The_max_pool_size_is_the_connection_string_s_or_the_provider_s_default(string provider, string connectionString, int? expected) =>
        Assert.Equal(expected, Traits(provider).MaxPoolSize(connectionString));

    /// <summary>MySqlConnector's own failure: it connected, but the server never sent its greeting.</summary>
    [Fact]
    public async Task A_MySqlConnector_open_that_gets_no_answer_is_a_connect_timeout()
    {
        using var server = new SilentServer();
        await using var connection = new MySqlConnector.MySqlConnection(
            $"Server=127.0.0.1;Port={server.Port};User ID=u;Connect Timeout=1;Pooling=false");

        var error = await Assert.ThrowsAsync<MySqlConnector.MySqlException>(() => connection.OpenAsync());

        Assert.Equal(MySqlConnector.MySqlErrorCode.UnableToConnectToHost, error.ErrorCode);
        Assert.Equal(OpenTimeout.Connect, ProviderTraits.MySqlConnector.ClassifyOpenFailure(error));
    }

    /// <summary>Npgsql's own failure: it connected and sent its startup message, and the server never answered.</summary>
    [Fact]
    public async Task An_Npgsql_open_that_gets_no_answer_is_a_connect_timeout()
    {
        using var server = new SilentServer();
        await using var connection = new Npgsql.NpgsqlConnection($"Host=127.0.0.1;Port={server.Port};Username=u;Timeout=1;Pooling=false");

        var error = await Assert.ThrowsAsync<Npgsql.NpgsqlException>(() => connection.OpenAsync());

        Assert.IsType<TimeoutException>(error.InnerException);
        Assert.Equal(OpenTimeout.Connect, ProviderTraits.Npgsql.ClassifyOpenFailure(error));
    }

    /// <summary>SqlClient's own failure: the pre-login handshake never got an answer, which it numbers -2.</summary>
    [Fact]
    public async Task A_SqlClient_open_that_gets_no_answer_is_a_connect_timeout()
    {
        using var server = new SilentServer();
        await using var connection = new Microsoft.Data.SqlClient.SqlConnection(
            $"Data Source=tcp:127.0.0.1,{server.Port};User ID=u;Password=p;Encrypt=false;Connect Timeout=1;Pooling=false;Connect Retry Count=0");

        var error = await Assert.ThrowsAsync<Microsoft.Data.SqlClient.SqlException>(() => connection.OpenAsync());

        Assert.Equal(-2, error.Number);
        Assert.Equal(OpenTimeout.Connect, ProviderTraits.MicrosoftSqlClient.ClassifyOpenFailure(error));
    }

    [Fact]
    public void MySqlConnector_tells_a_pool_wait_from_a_connect_and_a_refusal_by_its_fixed_texts_under_one_code()
    {
        Exception Make(string message) => MySqlConnectorException(MySqlConnector.MySqlErrorCode.UnableToConnectToHost, message);

        Assert.Equal(OpenTimeout.PoolWait, ProviderTraits.MySqlConnector.ClassifyOpenFailure(Make("Connect Timeout expired. All pooled connections are in use.")));
        Assert.Equal(OpenTimeout.Connect, ProviderTraits.MySqlConnector.ClassifyOpenFailure(Make("Connect Timeout expired.")));
        Assert.Equal(OpenTimeout.None, ProviderTraits.MySqlConnector.ClassifyOpenFailure(Make("Unable to connect to any of the specified MySQL hosts.")));
        Assert.Equal(OpenTimeout.None, ProviderTraits.MySqlConnector.ClassifyOpenFailure(
            MySqlConnectorException(MySqlConnector.MySqlErrorCode.AccessDenied, "Connect Timeout expired. All pooled connections are in use.")));
        Assert.Equal(OpenTimeout.None, ProviderTraits.MySqlConnector.ClassifyOpenFailure(
            new InvalidOperationException("Connect Timeout expired. All pooled connections are in use.")));
        Assert.Equal(OpenTimeout.PoolWait, ProviderTraits.MySqlConnector.ClassifyOpenFailure(
            new InvalidOperationException("wrapped", Make("Connect Timeout expired. All pooled connections are in use."))));
    }

    [Fact]
    public void Npgsql_tells_its_pool_timeout_by_type_and_inner_timeout_and_ignores_the_server_s_answers()
    {
        var exhausted = new Npgsql.NpgsqlException(
            "The connection pool has been exhausted, either raise 'Max Pool Size' (currently 2) or 'Timeout' (currently 1 seconds) in your connection string.",
            new TimeoutException());
        Assert.Equal(OpenTimeout.PoolWait, ProviderTraits.Npgsql.ClassifyOpenFailure(exhausted));
        Assert.Equal(OpenTimeout.None, ProviderTraits.Npgsql.ClassifyOpenFailure(new Npgsql.NpgsqlException("The connection pool has been exhausted")));
        Assert.Equal(OpenTimeout.None, ProviderTraits.Npgsql.ClassifyOpenFailure(new Npgsql.PostgresException("too many clients", "FATAL", "FATAL", "53300")));
        Assert.Equal(OpenTimeout.None, ProviderTraits.Npgsql.ClassifyOpenFailure(new OperationCanceledException("cancelled", exhausted)));
    }

    [Fact]
    public void MySqlData_s_pool_timeout_is_its_numberless_exception_and_nothing_else_is()
    {
        const string Text = "error connecting: Timeout expired.  The timeout period elapsed prior to obtaining a connection from the pool.  " +
                            "This may have occurred because all pooled connections were in use and max pool size was reached.";
        Assert.Equal(OpenTimeout.PoolWait, ProviderTraits.MySqlData.ClassifyOpenFailure(MySqlDataException(Text, null)));
        Assert.Equal(OpenTimeout.None, ProviderTraits.MySqlData.ClassifyOpenFailure(MySqlDataException(Text, 1042)));
        Assert.Equal(OpenTimeout.None, ProviderTraits.MySqlData.ClassifyOpenFailure(MySqlDataException("Unable to connect to any of the specified MySQL hosts.", 1042)));
        Assert.Equal(OpenTimeout.None, ProviderTraits.MySqlData.ClassifyOpenFailure(new InvalidOperationException(Text)));
    }

    /// <summary>
    /// SqlClient's pool timeout is an <see cref="InvalidOperationException"/> in the user's language: it is recognised
    /// in German as in English, from SqlClient's own resources; another provider's text is not taken for it.
    /// </summary>
    [Fact]
    public void SqlClient_s_translated_pool_timeout_is_recognised_from_its_own_resources()
    {
        CultureInfo before = CultureInfo.CurrentUICulture;
        try
        {
            CultureInfo.CurrentUICulture = CultureInfo.GetCultureInfo("en-US");
            string english = ProviderErrors.SqlClientPoolTimeoutText("Microsoft.Data.SqlClient")!;
            CultureInfo.CurrentUICulture = CultureInfo.GetCultureInfo("de-DE");
            string german = ProviderErrors.SqlClientPoolTimeoutText("Microsoft.Data.SqlClient")!;

            Assert.Contains("prior to obtaining a connection from the pool", english, StringComparison.Ordinal);
            Assert.NotEqual(english, german);
            Assert.Equal(OpenTimeout.PoolWait, ProviderTraits.MicrosoftSqlClient.ClassifyOpenFailure(new InvalidOperationException(german)));
            Assert.Equal(OpenTimeout.PoolWait, ProviderTraits.MicrosoftSqlClient.ClassifyOpenFailure(new InvalidOperationException(english)));
            Assert.Equal(OpenTimeout.None, ProviderTraits.MicrosoftSqlClient.ClassifyOpenFailure(new InvalidOperationException("The connection pool has been exhausted")));
            Assert.Equal(OpenTimeout.None, ProviderTraits.MicrosoftSqlClient.ClassifyOpenFailure(new InvalidOperationException("Die Verbindung wurde nicht geschlossen.")));
        }
        finally
        {
            CultureInfo.CurrentUICulture = before;
        }
    }

    [Fact]
    public void A_provider_Orseis_does_not_know_keeps_the_message_heuristics_and_sqlite_has_no_open_timeouts()
    {
        var sqlClientText = new InvalidOperationException("Timeout expired. The timeout period elapsed prior to obtaining a connection from the pool.");
        Assert.Equal(OpenTimeout.PoolWait, ProviderTraits.Other.ClassifyOpenFailure(sqlClientText));
        Assert.Equal(OpenTimeout.None, ProviderTraits.MicrosoftSqlite.ClassifyOpenFailure(sqlClientText));
    }

    private static ProviderTraits Traits(string name) =>
        (ProviderTraits)typeof(ProviderTraits).GetField(name, BindingFlags.Public | BindingFlags.Static)!.GetValue(null)!;

    /// <summary>A MySqlConnector exception with an error code, through the constructor MySqlConnector itself uses (not public).</summary>
    private static MySqlConnector.MySqlException MySqlConnectorException(MySqlConnector.MySqlErrorCode code, string message) =>
        (MySqlConnector.MySqlException)typeof(MySqlConnector.MySqlException)
            .GetConstructor(BindingFlags.NonPublic | BindingFlags.Instance, [typeof(MySqlConnector.MySqlErrorCode), typeof(string)])!
            .Invoke([code, message]);

    /// <summary>A MySql.Data exception, with a server error number or without, through MySql.Data's own (internal) constructors.</summary>
    private static MySql.Data.MySqlClient.MySqlException MySqlDataException(string message, int? number)
    {
        Type type = typeof(MySql.Data.MySqlClient.MySqlException);
        return (MySql.Data.MySqlClient.MySqlException)(number is { } n
            ? type.GetConstructor(BindingFlags.NonPublic | BindingFlags.Instance, [typeof(string), typeof(int)])!.Invoke([message, n])
            : type.GetConstructor(BindingFlags.NonPublic | BindingFlags.Instance, [typeof(string)])!.Invoke([message]));
    }

    private sealed class SqliteCommandOfMine : SqliteCommand;

    /// <summary>
    /// A loopback port whose connections are accepted by the kernel (they wait in the listen backlog) and never read or
    /// answered: a server that does not complete new connections.
    /// </summary>
    private sealed class SilentServer : IDisposable
    {
        private readonly TcpListener _listener = new(IPAddress.Loopback, 0);

        public SilentServer() => _listener.Start();

        public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

        public void Dispose() => _listener.Dispose();
    }
}
