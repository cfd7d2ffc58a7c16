using System.Net;
using System.Net.Sockets;
using System.Reflection;
using Npgsql;

namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="OrseisRetry.IsSafeToRetry"/> on the exceptions Orseis throws, and how a read is told from its text
/// (<see cref="ReadStatement"/>): a write, a second statement, a procedure or an unclear text is never a read.
/// </summary>
public sealed class RetryClassificationTests
{
    [Theory]
    [InlineData("select 1", true)]
    [InlineData("  SELECT id, name FROM users WHERE id = @id", true)]
    [InlineData("-- a comment\n/* another */ select 1", true)]
    [InlineData("(select 1) union (select 2)", true)]
    [InlineData("with x as (select 1 as v) select v from x", true)]
    [InlineData("show tables", true)]
    [InlineData("select 'insert into t' as text", true)]
    [InlineData("select update_time, deleted from t", true)]
    [InlineData("select 1;", true)]
    [InlineData("select 1; -- done", true)]
    [InlineData("insert into t values (1)", false)]
    [InlineData("update t set v = 1", false)]
    [InlineData("delete from t", false)]
    [InlineData("with x as (delete from t returning *) select * from x", false)]
    [InlineData("select * into new_table from t", false)]
    [InlineData("select 1; delete from t", false)]
    [InlineData("select 1; select 2", false)]
    [InlineData("select nextval('s')", false)]
    [InlineData("call p()", false)]
    [InlineData("exec p", false)]
    [InlineData("select * from t for update", false)]
    [InlineData("select 'a\\'; delete from t; -- '", false)]
    [InlineData("", false)]
    [InlineData("-- only a comment", false)]
    [InlineData("'select'", false)]
    [InlineData("select 1 /*! ; delete from t */", false)]
    [InlineData("select 1 /* delete from t */", true)]
    [InlineData("select $$delete from t$$ as text", true)]
    [InlineData("select \"update\" from t", true)]
    public void A_read_is_one_statement_that_starts_reading_and_names_no_write(string sql, bool reads) =>
        Assert.Equal(reads, ReadStatement.OnlyReads(sql));

    [Fact]
    public void A_procedure_call_is_never_a_read() =>
        Assert.False(ReadStatement.OnlyReads(new CommandRequest(
            "select_things", new ParameterBag { CommandType = System.Data.CommandType.StoredProcedure }, null)));

    [Theory]
    [InlineData("select 1", null, true)]
    [InlineData("select 1", false, false)] // a SELECT whose function writes: the caller says so
    [InlineData("select 'a\\b'", null, false)] // a backslash: where the string ends is not certain
    [InlineData("select 'a\\b'", true, true)]
    [InlineData("insert into t values (1)", null, false)]
    public void The_callers_word_on_a_read_overrides_what_the_text_tells(string sql, bool? word, bool reads) =>
        Assert.Equal(reads, ReadStatement.OnlyReads(new CommandRequest(sql, new ParameterBag { OnlyReads = word }, null)));

    [Fact]
    public void A_procedure_the_caller_says_only_reads_is_a_read() =>
        Assert.True(ReadStatement.OnlyReads(new CommandRequest(
            "select_things", new ParameterBag { CommandType = System.Data.CommandType.StoredProcedure, OnlyReads = true }, null)));

    [Fact]
    public void A_broken_read_outside_a_transaction_is_safe_to_retry_and_nothing_else_broken_is_unless_nothing_was_sent()
    {
        Assert.True(OrseisRetry.IsSafeToRetry(Broken(inTransaction: false, mayHaveRun: true, read: true)));
        Assert.Equal(OrseisRetry.ReadConnectionBroken, OrseisRetry.ReasonToRetry(Broken(inTransaction: false, mayHaveRun: true, read: true)));
        Assert.False(OrseisRetry.IsSafeToRetry(Broken(inTransaction: false, mayHaveRun: true, read: false)));
        Assert.False(OrseisRetry.IsSafeToRetry(Broken(inTransaction: true, mayHaveRun: true, read: true)));
        Assert.False(OrseisRetry.IsSafeToRetry(Broken(inTransaction: true, mayHaveRun: false, read: false)));
        Assert.Equal(OrseisRetry.OpenFailed, OrseisRetry.ReasonToRetry(Broken(inTransaction: false, mayHaveRun: false, read: false)));
    }

    [Fact]
    public void Timeouts_cancellations_and_transactions_the_server_ended_are_never_safe_to_retry()
    {
        Assert.False(OrseisRetry.IsSafeToRetry(new OperationCanceledException()));
        Assert.False(OrseisRetry.IsSafeToRetry(new TransactionRolledBackException("deadlock", isTransient: true, null)));
        Assert.False(OrseisRetry.IsSafeToRetry(new InvalidOperationException("syntax error")));
        Assert.False(OrseisRetry.IsSafeToRetry(new OperationCanceledException("cancelled", new SocketException((int)SocketError.ConnectionRefused))));
    }

    [Theory]
    [InlineData("57P03", true)] // the database system is starting up / shutting down
    [InlineData("53300", true)] // too many connections
    [InlineData("28P01", false)] // password authentication failed
    [InlineData("40P01", false)] // deadlock detected
    public void PostgreSQLs_answers_that_only_an_open_gets_are_safe_to_retry(string sqlState, bool safe) =>
        Assert.Equal(safe, OrseisRetry.IsSafeToRetry(new PostgresException("message", "FATAL", "FATAL", sqlState)));

    [Theory]
    [InlineData(1042, true)] // unable to connect to the host: refused or timed out
    [InlineData(1040, true)] // too many connections
    [InlineData(1045, false)] // access denied
    [InlineData(1213, false)] // deadlock
    public void MySQLs_answers_that_only_an_open_gets_are_safe_to_retry_on_both_providers(int number, bool safe)
    {
        var connector = (MySqlConnector.MySqlException)typeof(MySqlConnector.MySqlException)
            .GetConstructor(BindingFlags.NonPublic | BindingFlags.Instance, [typeof(MySqlConnector.MySqlErrorCode), typeof(string)])!
            .Invoke([(MySqlConnector.MySqlErrorCode)number, "message"]);
        var data = (MySql.Data.MySqlClient.MySqlException)typeof(MySql.Data.MySqlClient.MySqlException)
            .GetConstructor(BindingFlags.NonPublic | BindingFlags.Instance, [typeof(string), typeof(int)])!
            .Invoke(["message", number]);

        Assert.Equal(safe, OrseisRetry.IsSafeToRetry(connector));
        Assert.Equal(safe, OrseisRetry.IsSafeToRetry(data));
        Assert.Equal(safe, OrseisRetry.IsSafeToRetry(new InvalidOperationException("wrapped", data)));
    }

    /// <summary>
    /// Each provider's facts are its own: the provider is found from the exception's type, so a MySQL error number in
    /// another provider's exception, or a PostgreSQL SQLSTATE in a MySQL one, is not taken for a failed open.
    /// </summary>
    [Fact]
    public void A_providers_connect_errors_are_read_by_that_providers_traits_only()
    {
        var connector = (MySqlConnector.MySqlException)typeof(MySqlConnector.MySqlException)
            .GetConstructor(BindingFlags.NonPublic | BindingFlags.Instance, [typeof(MySqlConnector.MySqlErrorCode), typeof(string)])!
            .Invoke([MySqlConnector.MySqlErrorCode.UnableToConnectToHost, "Failed to connect"]);

        Assert.Same(ProviderTraits.MySqlConnector, ProviderTraits.For(connector.GetType()));
        Assert.True(ProviderTraits.MySqlConnector.CouldNotConnect(connector));
        Assert.False(ProviderTraits.MySqlData.CouldNotConnect(connector));
        Assert.False(ProviderTraits.Npgsql.CouldNotConnect(connector));
        Assert.False(ProviderTraits.SaysCouldNotConnect(new Microsoft.Data.Sqlite.SqliteException("busy", 5)));
        Assert.False(ProviderTraits.SaysCouldNotConnect(new TimeoutException("Failed to connect")));
    }

    /// <summary>
    /// MySqlConnector's real open to a server that never answers: error 1042 with no socket error in its chain, so it
    /// is MySqlConnector's trait that tells it.
    /// </summary>
    [Fact]
    public async Task A_MySqlConnector_open_that_gets_no_answer_is_an_open_that_failed()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int port = ((IPEndPoint)listener.LocalEndpoint).Port;
        await using var connection = new MySqlConnector.MySqlConnection($"Server=127.0.0.1;Port={port};User ID=u;Connect Timeout=1;Pooling=false");

        var error = await Assert.ThrowsAsync<MySqlConnector.MySqlException>(() => connection.OpenAsync());

        Assert.True(ProviderTraits.SaysCouldNotConnect(error));
        Assert.Equal(OrseisRetry.OpenFailed, OrseisRetry.ReasonToRetry(error));
    }

    [Fact]
    public void A_socket_refused_anywhere_in_the_chain_is_an_open_that_failed() =>
        Assert.Equal(
            OrseisRetry.OpenFailed,
            OrseisRetry.ReasonToRetry(new NpgsqlException("Failed to connect to 127.0.0.1:1", new SocketException((int)SocketError.ConnectionRefused))));

    [Fact]
    public void A_connect_that_timed_out_is_an_open_that_failed_a_bare_timeout_is_not()
    {
        Assert.Equal(OrseisRetry.OpenFailed, OrseisRetry.ReasonToRetry(new NpgsqlException("Failed to connect to 127.0.0.1:1", new TimeoutException())));
        Assert.Equal(OrseisRetry.OpenFailed, OrseisRetry.ReasonToRetry(new NpgsqlException("Failed to connect", new SocketException((int)SocketError.TimedOut))));
        Assert.Null(OrseisRetry.ReasonToRetry(new TimeoutException()));
        Assert.Null(OrseisRetry.ReasonToRetry(new InvalidOperationException("x", new TimeoutException())));
    }

    /// <summary>
    /// Captured from a PostgreSQL stopped under reads (PostgresRestartRetryTests, beside a CPU hog): the connect's socket
    /// was reset ("Connection reset by peer": the server closed its listening socket with the connection queued, never
    /// accepted). Npgsql raises "Failed to connect to" only from the loop that connects the socket, before its startup
    /// message, around what the connect threw: nothing was sent, so it is an open that failed, for a unit of work too.
    /// </summary>
    [Fact]
    public void An_Npgsql_connect_reset_by_a_server_shutting_down_is_an_open_that_failed()
    {
        var reset = new NpgsqlException("Failed to connect to 127.0.0.1:31144", new SocketException((int)SocketError.ConnectionReset));

        Assert.True(ProviderTraits.SaysCouldNotConnect(reset));
        Assert.Equal(OrseisRetry.OpenFailed, OrseisRetry.ReasonToRetry(reset));
        Assert.True(OrseisRetry.IsSafeToRetryTransaction(reset));
    }

    /// <summary>
    /// A reset read while a statement ran is Npgsql's "Exception while reading from stream" (the connector broken) around
    /// an <see cref="IOException"/> around the socket's error: whether the statement took effect is unknown, so it is never
    /// taken for a failed open, nor is a reset outside Npgsql's connect.
    /// </summary>
    [Fact]
    public void A_reset_read_while_a_statement_ran_or_outside_a_connect_is_not_an_open_that_failed()
    {
        var whileReading = new NpgsqlException(
            "Exception while reading from stream",
            new IOException("Unable to read data from the transport connection: Connection reset by peer.",
                new SocketException((int)SocketError.ConnectionReset)));

        Assert.False(ProviderTraits.SaysCouldNotConnect(whileReading));
        Assert.Null(OrseisRetry.ReasonToRetry(whileReading));
        Assert.Null(OrseisRetry.ReasonToRetry(new SocketException((int)SocketError.ConnectionReset)));
        Assert.Null(OrseisRetry.ReasonToRetry(new NpgsqlException("Failed to connect to 127.0.0.1:1", new InvalidOperationException())));
        Assert.Null(OrseisRetry.ReasonToRetry(new IOException("Failed to connect to 127.0.0.1:1", new SocketException((int)SocketError.ConnectionReset))));
    }

    [Fact]
    public void A_unit_of_work_runs_again_after_a_transient_rollback_or_a_break_before_its_commit_never_after_a_commit_of_unknown_outcome()
    {
        Assert.Equal(OrseisRetry.TransactionRolledBack, CallRetries.UnitReason(new TransactionRolledBackException("deadlock", isTransient: true, null), commitSent: false));
        Assert.Equal(OrseisRetry.TransactionRolledBack, CallRetries.UnitReason(new TransactionRolledBackException("nothing committed", isTransient: true, null), commitSent: true));
        Assert.Null(CallRetries.UnitReason(new TransactionRolledBackException("a constraint", isTransient: false, null), commitSent: false));
        Assert.Equal(OrseisRetry.TransactionConnectionBroken, CallRetries.UnitReason(Broken(inTransaction: true, mayHaveRun: true, read: false), commitSent: false));
        Assert.Null(CallRetries.UnitReason(Broken(inTransaction: true, mayHaveRun: true, read: false), commitSent: true));
        Assert.Equal(OrseisRetry.TransactionConnectionBroken, CallRetries.UnitReason(Broken(inTransaction: true, mayHaveRun: false, read: false), commitSent: true));
        Assert.Null(CallRetries.UnitReason(new CommandTimeoutException("commit timed out", TimeSpan.FromSeconds(1), null), commitSent: true));

        Assert.True(OrseisRetry.IsSafeToRetryTransaction(new TransactionRolledBackException("deadlock", isTransient: true, null)));
        Assert.False(OrseisRetry.IsSafeToRetryTransaction(Broken(inTransaction: true, mayHaveRun: true, read: false)));
        Assert.True(OrseisRetry.IsSafeToRetryTransaction(new NpgsqlException("Failed to connect", new SocketException((int)SocketError.ConnectionRefused))));
    }

    private static ConnectionBrokenException Broken(bool inTransaction, bool mayHaveRun, bool read) =>
        new("broken", inTransaction, mayHaveRun, null) { CallOnlyRead = read };
}
