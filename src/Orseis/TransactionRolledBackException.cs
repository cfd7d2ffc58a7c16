namespace Orseis;

/// <summary>
/// The server ended a transaction that Orseis still held open: it rolled the transaction back (a deadlock victim, a
/// lock wait timeout under <c>innodb_rollback_on_timeout</c>, SQL Server's <c>XACT_ABORT</c>, SQLite's
/// <c>OR ROLLBACK</c>), or it aborted it and will only roll it back (PostgreSQL after any failed statement). Nothing of
/// the transaction was committed, and nothing more runs in it: every later call in the transaction throws this
/// exception without sending anything (so no statement runs in autocommit by accident), <c>Commit</c> throws it saying
/// nothing was committed, and <c>Rollback</c> and <c>Dispose</c> succeed. Inside a <c>TransactionScope</c> the scope is
/// doomed: disposing it after <c>Complete</c> throws <see cref="System.Transactions.TransactionAbortedException"/>.
/// </summary>
/// <remarks>
/// The inner exception is the server's error that ended the transaction (a <c>MySqlException</c> 1213 or a
/// <c>PostgresException</c> 40P01 for a deadlock, say). Retry the whole unit of work, from <c>BeginTransaction</c> on,
/// when <see cref="IsTransient"/> is true.
/// </remarks>
public sealed class TransactionRolledBackException : OrseisException
{
    internal TransactionRolledBackException(string message, bool isTransient, Exception? innerException)
        : base(message, innerException) => IsTransient = isTransient;

    /// <summary>
    /// <see langword="true"/> when the server ended the transaction for a reason that running the whole transaction again
    /// may not meet (a deadlock, a lock wait timeout, a serialization failure, a busy database): a retry policy can read it
    /// without parsing messages.
    /// </summary>
    public bool IsTransient { get; }
}
