using System.Data;
using System.Data.Common;
using System.Globalization;

namespace Orseis.Execution.Providers;

/// <summary>What the server holds of a transaction after one of its statements failed.</summary>
internal enum TransactionStanding
{
    /// <summary>Still open: the failure ended only the statement.</summary>
    Open,

    /// <summary>Rolled back by the server: later statements would run in autocommit.</summary>
    RolledBack,

    /// <summary>Aborted (PostgreSQL): the server rejects every statement until a rollback, or a rollback to a savepoint.</summary>
    Aborted,

    /// <summary>The server could not be asked.</summary>
    Unknown,
}

/// <summary>A statement the server ended because of another transaction's locks.</summary>
internal enum LockConflict
{
    Deadlock,
    LockWaitTimeout,
    SerializationFailure,
    Busy,
}

/// <summary>
/// How a provider's server is asked whether a transaction still stands (<see cref="ProviderTraits.TransactionQuestion"/>).
/// </summary>
internal enum TransactionQuestion
{
    /// <summary>Orseis does not know how to ask: the transaction is taken as open, as the provider does.</summary>
    None,

    /// <summary>MariaDB's <c>@@in_transaction</c>; on MySQL, which lacks it, the error code decides.</summary>
    MySql,

    /// <summary>Any statement fails with <c>25P02</c> in an aborted transaction.</summary>
    Postgres,

    /// <summary><c>XACT_STATE()</c>: 1 open, 0 none, -1 doomed (only a rollback is allowed).</summary>
    SqlServer,

    /// <summary><c>BEGIN</c> fails inside a transaction and succeeds outside one (then rolled back at once).</summary>
    Sqlite,
}

/// <summary>
/// What each provider's server does to a transaction when one of its statements fails, and how to ask it. Which errors
/// end the whole transaction differs by server and by setting (MySQL's lock wait timeout ends only the statement unless
/// <c>innodb_rollback_on_timeout</c>; PostgreSQL aborts the transaction on any error, and a <c>ROLLBACK TO SAVEPOINT</c>
/// sent as SQL recovers it), so Orseis asks the server once after a failure rather than guessing from the error.
/// </summary>
internal static class ServerTransactions
{
    private const int MySqlDeadlock = 1213;
    private const int MySqlLockWaitTimeout = 1205;
    private const int SqlServerDeadlock = 1205;
    private const string PostgresInFailedTransaction = "25P02";

    /// <summary>Asks the server what it holds of <paramref name="transaction"/> after <paramref name="error"/>; never throws.</summary>
    public static async ValueTask<TransactionStanding> AskAsync(
        TransactionQuestion question, DbConnection connection, DbTransaction? transaction, Exception error, bool async)
    {
        if (connection.State != ConnectionState.Open)
            return TransactionStanding.Unknown;

        // A provider that saw the server end the transaction detaches it (SqlClient's zombied transaction).
        if (transaction is { Connection: null })
            return TransactionStanding.RolledBack;
        try
        {
            return question switch
            {
                TransactionQuestion.MySql => await AskMySqlAsync(connection, transaction, error, async).ConfigureAwait(false),
                TransactionQuestion.Postgres => await AskPostgresAsync(connection, transaction, async).ConfigureAwait(false),
                TransactionQuestion.SqlServer => await AskSqlServerAsync(connection, transaction, async).ConfigureAwait(false),
                TransactionQuestion.Sqlite => await AskSqliteAsync(connection, transaction, async).ConfigureAwait(false),
                _ => TransactionStanding.Open,
            };
        }
#pragma warning disable CA1031 // a question that fails leaves the transaction's standing unknown: the caller closes the connection
        catch (Exception)
#pragma warning restore CA1031
        {
            return TransactionStanding.Unknown;
        }
    }

    /// <summary>
    /// The provider's own error inside <paramref name="error"/> (a timeout or cancel Orseis reports around it), so that the
    /// cause of a lost transaction is the server's answer; <paramref name="error"/> itself when there is none.
    /// </summary>
    public static Exception ServerError(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (e is DbException)
                return e;
        }

        return error;
    }

    /// <summary>True for PostgreSQL's answer to a statement sent in an aborted transaction.</summary>
    public static bool IsRejectedAfterAbort(Exception error) => SqlState(error) == PostgresInFailedTransaction;

    /// <summary>
    /// The lock conflict behind <paramref name="error"/>, if it is one: the <see cref="Diagnostics.FindingKind.LockConflicts"/>
    /// finding counts these.
    /// </summary>
    public static LockConflict? ConflictOf(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            LockConflict? conflict = SqlStateOf(e) switch
            {
                "40P01" => LockConflict.Deadlock,
                "40001" => LockConflict.SerializationFailure,
                "55P03" => LockConflict.LockWaitTimeout,
                _ => null,
            };
            if (conflict is null && IsMySql(e))
            {
                conflict = ProviderErrors.ReadInt(e, "Number") switch
                {
                    MySqlDeadlock => LockConflict.Deadlock,
                    MySqlLockWaitTimeout => LockConflict.LockWaitTimeout,
                    _ => null,
                };
            }

            if (conflict is null && IsSqlServer(e) && ProviderErrors.ReadInt(e, "Number") == SqlServerDeadlock)
                conflict = LockConflict.Deadlock;
            if (conflict is null && ProviderErrors.ReadInt(e, "SqliteErrorCode") is 5 or 6)
                conflict = LockConflict.Busy;
            if (conflict is not null)
                return conflict;
        }

        return null;
    }

    /// <summary>
    /// What ended the transaction, in words, and whether running the whole transaction again may succeed: deadlocks, lock
    /// wait timeouts, serialization failures and a busy SQLite database are transient.
    /// </summary>
    public static (string What, bool Transient) Describe(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (SqlStateOf(e) is { } state)
            {
                return state switch
                {
                    "40P01" => ("a deadlock (PostgreSQL 40P01)", true),
                    "40001" => ("a serialization failure (PostgreSQL 40001)", true),
                    "55P03" => ("a lock that was not available (PostgreSQL 55P03)", true),
                    "57014" => ("a statement cancelled or timed out (PostgreSQL 57014)", false),
                    _ => ($"a failed statement (PostgreSQL {state})", false),
                };
            }

            if (IsMySql(e) && ProviderErrors.ReadInt(e, "Number") is { } mysql)
            {
                return mysql switch
                {
                    MySqlDeadlock => ("a deadlock (MySQL error 1213)", true),
                    MySqlLockWaitTimeout => ("a lock wait timeout (MySQL error 1205, with innodb_rollback_on_timeout)", true),
                    _ => ($"a failed statement (MySQL error {mysql})", false),
                };
            }

            if (IsSqlServer(e) && ProviderErrors.ReadInt(e, "Number") is { } number)
            {
                return number == SqlServerDeadlock
                    ? ("a deadlock (SQL Server error 1205)", true)
                    : ($"a failed statement (SQL Server error {number})", false);
            }

            if (ProviderErrors.ReadInt(e, "SqliteErrorCode") is { } sqlite)
            {
                return sqlite is 5 or 6
                    ? ($"a busy database (SQLite error {sqlite})", true)
                    : ($"a failed statement (SQLite error {sqlite})", false);
            }

        }

        return error is OperationCanceledException
            ? ("a cancelled statement", false)
            : ($"a failed statement ({error.GetType().FullName})", false);
    }

    private static async ValueTask<TransactionStanding> AskSqlServerAsync(DbConnection connection, DbTransaction? transaction, bool async)
    {
        object? state = await ScalarAsync(connection, transaction, "select xact_state()", async).ConfigureAwait(false);
        return Convert.ToInt32(state, CultureInfo.InvariantCulture) == 1 ? TransactionStanding.Open : TransactionStanding.RolledBack;
    }

    private static async ValueTask<TransactionStanding> AskMySqlAsync(
        DbConnection connection, DbTransaction? transaction, Exception error, bool async)
    {
        object? inTransaction;
        try
        {
            inTransaction = await ScalarAsync(connection, transaction, "select @@in_transaction", async).ConfigureAwait(false);
        }
        catch (DbException) when (connection.State == ConnectionState.Open)
        {
            // MySQL has no @@in_transaction: a deadlock always rolls the transaction back, a lock wait timeout only with
            // innodb_rollback_on_timeout, any other error ends only the statement.
            return MySqlCode(error) switch
            {
                MySqlDeadlock => TransactionStanding.RolledBack,
                MySqlLockWaitTimeout => IsOn(
                    await ScalarAsync(connection, transaction, "select @@innodb_rollback_on_timeout", async).ConfigureAwait(false))
                    ? TransactionStanding.RolledBack
                    : TransactionStanding.Open,
                _ => TransactionStanding.Open,
            };
        }

        return IsOn(inTransaction) ? TransactionStanding.Open : TransactionStanding.RolledBack;
    }

    private static async ValueTask<TransactionStanding> AskPostgresAsync(DbConnection connection, DbTransaction? transaction, bool async)
    {
        try
        {
            await ScalarAsync(connection, transaction, "select 1", async).ConfigureAwait(false);
            return TransactionStanding.Open;
        }
        catch (DbException rejected) when (IsRejectedAfterAbort(rejected))
        {
            return TransactionStanding.Aborted;
        }
    }

    private static async ValueTask<TransactionStanding> AskSqliteAsync(DbConnection connection, DbTransaction? transaction, bool async)
    {
        try
        {
            await ScalarAsync(connection, transaction, "begin", async).ConfigureAwait(false);
        }
        catch (DbException) when (connection.State == ConnectionState.Open)
        {
            return TransactionStanding.Open; // "cannot start a transaction within a transaction"
        }

        await ScalarAsync(connection, transaction, "rollback", async).ConfigureAwait(false);
        return TransactionStanding.RolledBack;
    }

    private static async ValueTask<object?> ScalarAsync(DbConnection connection, DbTransaction? transaction, string sql, bool async)
    {
        DbCommand command = connection.CreateCommand();
        try
        {
            command.Transaction = transaction;
            command.CommandText = sql;
            command.CommandTimeout = 15;
            return async ? await command.ExecuteScalarAsync().ConfigureAwait(false) : command.ExecuteScalar();
        }
        finally
        {
            if (async)
                await command.DisposeAsync().ConfigureAwait(false);
            else
                command.Dispose();
        }
    }

    private static bool IsOn(object? value) => value switch
    {
        null or DBNull => false,
        string text => text is "1" || text.Equals("ON", StringComparison.OrdinalIgnoreCase),
        _ => Convert.ToInt64(value, CultureInfo.InvariantCulture) != 0,
    };

    private static int? MySqlCode(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (IsMySql(e) && ProviderErrors.ReadInt(e, "Number") is { } code)
                return code;
        }

        return null;
    }

    private static string? SqlState(Exception error)
    {
        for (Exception? e = error; e is not null; e = e.InnerException)
        {
            if (SqlStateOf(e) is { } state)
                return state;
        }

        return null;
    }

    private static string? SqlStateOf(Exception error) =>
        ServerOf(error) == TransactionQuestion.Postgres ? ProviderErrors.ReadString(error, "SqlState") : null;

    private static bool IsMySql(Exception error) => ServerOf(error) == TransactionQuestion.MySql;

    private static bool IsSqlServer(Exception error) => ServerOf(error) == TransactionQuestion.SqlServer;

    /// <summary>Which server's error <paramref name="error"/> is, by its provider's <see cref="ProviderTraits.ServerErrorType"/>.</summary>
    private static TransactionQuestion? ServerOf(Exception error) => ProviderTraits.OwnerOfServerError(error)?.TransactionQuestion;
}
