using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Reflection;

namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="OpenFailure"/>: what a failed open was (a wait for the pool, a connect that timed out, a connection that
/// broke while it was opened, a cancellation), read from real provider exceptions: thrown by the provider itself against a
/// socket that never answers, or built through the provider's own constructors where no server is needed to see them.
/// </summary>
public sealed class OpenFailureTests
{
    /// <summary>MySqlConnector's own failure: it connected, but the server never sent its greeting.</summary>
    [Fact]
    public async Task A_MySqlConnector_open_that_gets_no_answer_is_a_connect_timeout()
    {
        using var server = new SilentServer();
        await using var connection = new MySqlConnector.MySqlConnection(
            $"Server=127.0.0.1;Port={server.Port};User ID=u;Connect Timeout=1;Pooling=false");

        var error = await Assert.ThrowsAsync<MySqlConnector.MySqlException>(() => connection.OpenAsync());

        Assert.Equal(MySqlConnector.MySqlErrorCode.UnableToConnectToHost, error.ErrorCode);
        Assert.Equal(OpenTimeout.Connect, Timeout(ProviderTraits.MySqlConnector, error));
    }

    /// <summary>Npgsql's own failure: it connected and sent its startup message, and the server never answered.</summary>
    [Fact]
    public async Task An_Npgsql_open_that_gets_no_answer_is_a_connect_timeout()
    {
        using var server = new SilentServer();
        await using var connection = new Npgsql.NpgsqlConnection($"Host=127.0.0.1;Port={server.Port};Username=u;Timeout=1;Pooling=false");

        var error = await Assert.ThrowsAsync<Npgsql.NpgsqlException>(() => connection.OpenAsync());

        Assert.IsType<TimeoutException>(error.InnerException);
        Assert.Equal(OpenTimeout.Connect, Timeout(ProviderTraits.Npgsql, error));
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
        Assert.Equal(OpenTimeout.Connect, Timeout(ProviderTraits.MicrosoftSqlClient, error));
    }

    [Fact]
    public void MySqlConnector_tells_a_pool_wait_from_a_connect_and_a_refusal_by_its_fixed_texts_under_one_code()
    {
        Exception Make(string message) => MySqlConnectorException(MySqlConnector.MySqlErrorCode.UnableToConnectToHost, message);

        Assert.Equal(OpenTimeout.PoolWait, Timeout(ProviderTraits.MySqlConnector, Make("Connect Timeout expired. All pooled connections are in use.")));
        Assert.Equal(OpenTimeout.Connect, Timeout(ProviderTraits.MySqlConnector, Make("Connect Timeout expired.")));
        Assert.Equal(OpenTimeout.None, Timeout(ProviderTraits.MySqlConnector, Make("Unable to connect to any of the specified MySQL hosts.")));
        Assert.Equal(OpenTimeout.None, Timeout(ProviderTraits.MySqlConnector, 
            MySqlConnectorException(MySqlConnector.MySqlErrorCode.AccessDenied, "Connect Timeout expired. All pooled connections are in use.")));
        Assert.Equal(OpenTimeout.None, Timeout(ProviderTraits.MySqlConnector, 
            new InvalidOperationException("Connect Timeout expired. All pooled connections are in use.")));
        Assert.Equal(OpenTimeout.PoolWait, Timeout(ProviderTraits.MySqlConnector, 
            new InvalidOperationException("wrapped", Make("Connect Timeout expired. All pooled connections are in use."))));
    }

    [Fact]
    public void Npgsql_tells_its_pool_timeout_by_type_and_inner_timeout_and_ignores_the_server_s_answers()
    {
        var exhausted = new Npgsql.NpgsqlException(
            "The connection pool has been exhausted, either raise 'Max Pool Size' (currently 2) or 'Timeout' (currently 1 seconds) in your connection string.",
            new TimeoutException());
        Assert.Equal(OpenTimeout.PoolWait, Timeout(ProviderTraits.Npgsql, exhausted));
        Assert.Equal(OpenTimeout.None, Timeout(ProviderTraits.Npgsql, new Npgsql.NpgsqlException("The connection pool has been exhausted")));
        Assert.Equal(OpenTimeout.None, Timeout(ProviderTraits.Npgsql, new Npgsql.PostgresException("too many clients", "FATAL", "FATAL", "53300")));
        Assert.Equal(OpenTimeout.None, Timeout(ProviderTraits.Npgsql, new OperationCanceledException("cancelled", exhausted)));
    }

    [Fact]
    public void MySqlData_s_pool_timeout_is_its_numberless_exception_and_nothing_else_is()
    {
        const string Text = "error connecting: Timeout expired.  The timeout period elapsed prior to obtaining a connection from the pool.  " +
                            "This may have occurred because all pooled connections were in use and max pool size was reached.";
        Assert.Equal(OpenTimeout.PoolWait, Timeout(ProviderTraits.MySqlData, MySqlDataException(Text, null)));
        Assert.Equal(OpenTimeout.None, Timeout(ProviderTraits.MySqlData, MySqlDataException(Text, 1042)));
        Assert.Equal(OpenTimeout.None, Timeout(ProviderTraits.MySqlData, MySqlDataException("Unable to connect to any of the specified MySQL hosts.", 1042)));
        Assert.Equal(OpenTimeout.None, Timeout(ProviderTraits.MySqlData, new InvalidOperationException(Text)));
    }

    /// <summary>
    /// A server that accepted the connection but did not answer Open's own queries in time (seen while MariaDB restarted
    /// under load: <c>Driver.GetTimeZoneOffset</c> timed out inside <c>MySqlConnection.Open</c>) is a connect that timed out,
    /// so the caller gets a <see cref="PoolExhaustedException"/> that says the server did not complete new connections.
    /// </summary>
    [Fact]
    public void MySqlData_s_timed_out_open_is_a_connect_timeout()
    {
        const string Text = "Timeout expired.  The timeout period elapsed prior to completion of the operation or the server is not responding.";
        Type type = typeof(MySql.Data.MySqlClient.MySqlException);
        var timedOut = (MySql.Data.MySqlClient.MySqlException)type
            .GetConstructor(BindingFlags.NonPublic | BindingFlags.Instance, [typeof(string), typeof(Exception)])!
            .Invoke([Text, new TimeoutException("Timeout in IO operation")]);
        Assert.Equal(OpenTimeout.Connect, Timeout(ProviderTraits.MySqlData, timedOut));
        Assert.Equal(OpenTimeout.None, Timeout(ProviderTraits.MySqlData, MySqlDataException(Text, null)));
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
            string english = OpenFailure.SqlClientPoolTimeoutText("Microsoft.Data.SqlClient")!;
            CultureInfo.CurrentUICulture = CultureInfo.GetCultureInfo("de-DE");
            string german = OpenFailure.SqlClientPoolTimeoutText("Microsoft.Data.SqlClient")!;

            Assert.Contains("prior to obtaining a connection from the pool", english, StringComparison.Ordinal);
            Assert.NotEqual(english, german);
            Assert.Equal(OpenTimeout.PoolWait, Timeout(ProviderTraits.MicrosoftSqlClient, new InvalidOperationException(german)));
            Assert.Equal(OpenTimeout.PoolWait, Timeout(ProviderTraits.MicrosoftSqlClient, new InvalidOperationException(english)));
            Assert.Equal(OpenTimeout.None, Timeout(ProviderTraits.MicrosoftSqlClient, new InvalidOperationException("The connection pool has been exhausted")));
            Assert.Equal(OpenTimeout.None, Timeout(ProviderTraits.MicrosoftSqlClient, new InvalidOperationException("Die Verbindung wurde nicht geschlossen.")));
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
        Assert.Equal(OpenTimeout.PoolWait, Timeout(ProviderTraits.Other, sqlClientText));
        Assert.Equal(OpenTimeout.None, Timeout(ProviderTraits.MicrosoftSqlite, sqlClientText));
    }

    [Theory]
    [InlineData("Connect Timeout expired.", "Connect")]
    [InlineData("Connect Timeout expired. All pooled connections are in use.", "PoolWait")]
    [InlineData("The connection pool has been exhausted, either raise 'Max Pool Size' (currently 2) or 'Timeout' (currently 1 seconds) in your connection string.", "PoolWait")]
    [InlineData("Timeout during reading attempt", "None")]
    [InlineData("Connection refused", "None")]
    public void An_unknown_provider_s_messages_are_classified(string message, string expected) =>
        Assert.Equal(Enum.Parse<OpenTimeout>(expected), Timeout(ProviderTraits.Other, new InvalidOperationException(message)));

    [Fact]
    public void An_open_broke_while_opening_only_when_an_IO_failure_is_somewhere_in_the_chain()
    {
        Assert.True(Broke(new IOException()));
        Assert.True(Broke(new EndOfStreamException()));
        Assert.True(Broke(new InvalidOperationException("outer", new InvalidOperationException("middle", new IOException()))));
        Assert.False(Broke(new InvalidOperationException("outer", new TimeoutException())));
        Assert.False(Broke(new TimeoutException()));
    }

    [Fact]
    public void A_cancellation_is_neither_a_timeout_nor_a_failure_to_connect_and_a_broken_open_is_no_outage()
    {
        OpenFailure cancelled = OpenFailure.Of(new OperationCanceledException("cancelled", new TimeoutException()), ProviderTraits.Other);
        Assert.True(cancelled.Cancelled);
        Assert.Equal(OpenTimeout.None, cancelled.Timeout);
        Assert.False(cancelled.FailedToConnect);

        OpenFailure poolWait = OpenFailure.Of(new InvalidOperationException("The connection pool has been exhausted"), ProviderTraits.Other);
        Assert.False(poolWait.FailedToConnect);

        OpenFailure broken = OpenFailure.Of(new InvalidOperationException("reset", new IOException()), ProviderTraits.Other);
        Assert.True(broken.FailedToConnect);
        Assert.False(broken.ServerUnanswered);

        OpenFailure refused = OpenFailure.Of(new InvalidOperationException("Connection refused"), ProviderTraits.Other);
        Assert.True(refused.ServerUnanswered);
    }

    private static OpenTimeout Timeout(ProviderTraits traits, Exception error) => OpenFailure.Of(error, traits).Timeout;

    private static bool Broke(Exception error) => OpenFailure.Of(error, ProviderTraits.Other).BrokeWhileOpening;

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
