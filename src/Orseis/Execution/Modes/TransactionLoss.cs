namespace Orseis.Execution.Modes;

/// <summary>
/// A transaction the server ended while Orseis held it open (see <see cref="ServerTransactions"/>): what ended it, and the
/// <see cref="TransactionRolledBackException"/> each later step gets.
/// </summary>
/// <param name="standing">What the server holds: <see cref="TransactionStanding.RolledBack"/> or <see cref="TransactionStanding.Aborted"/>,
/// or <see cref="TransactionStanding.Unknown"/> when Orseis could not ask and closed the connection, which rolls it back.</param>
/// <param name="cause">The server's error that ended it.</param>
internal sealed class TransactionLoss(TransactionStanding standing, Exception cause)
{
    private readonly (string What, bool Transient) _described = ServerTransactions.Describe(cause);

    public TransactionStanding Standing { get; } = standing;

    public Exception Cause { get; } = cause;

    private string Ended => Standing switch
    {
        TransactionStanding.Aborted => "aborted",
        TransactionStanding.Unknown => "may have kept or ended",
        _ => "rolled back",
    };

    private string Retry => _described.Transient
        ? "Run the whole transaction again from its start (IsTransient is true)."
        : "The server's error is the inner exception.";

    /// <summary>For a call in the transaction: refused before anything is sent (or rejected by the server, when aborted).</summary>
    public TransactionRolledBackException ForCall(string owner)
    {
        string what = Standing switch
        {
            TransactionStanding.Aborted =>
                $"The server aborted the transaction of {owner} after {_described.What}, and rejects every statement in it until it is " +
                "rolled back (a ROLLBACK TO SAVEPOINT sent as SQL recovers it); nothing of it will be committed.",
            TransactionStanding.Unknown =>
                $"A statement of the transaction of {owner} failed with {_described.What}, and Orseis could not ask the server " +
                "whether the transaction survived, so it closed the connection: the server rolled the transaction back and " +
                "nothing of it was committed.",
            _ =>
                $"The server rolled back the transaction of {owner} after {_described.What}: nothing of it was committed, " +
                "and this call was not sent, so that it cannot run outside the transaction (in autocommit).",
        };
        return new TransactionRolledBackException(
            $"{what} {Retry} Dispose (or roll back) the transaction; the session's calls after that run normally.",
            _described.Transient,
            Cause);
    }

    /// <summary>For a commit: the transaction is rolled back instead, and nothing was committed.</summary>
    public TransactionRolledBackException ForCommit(string owner) =>
        new($"Nothing was committed: the server {Ended} the transaction of {owner} after {_described.What}, so Orseis rolled it back " +
            $"instead of committing. {Retry} The session's calls after this run normally.", _described.Transient, Cause);

    /// <summary>For a call under a <c>TransactionScope</c> whose transaction the server ended: the scope is doomed.</summary>
    public TransactionRolledBackException ForScope(string owner) =>
        new($"The server {Ended} the TransactionScope's transaction after {_described.What} on {owner}: nothing of it will be committed, " +
            "and the scope is doomed (disposing it after Complete throws TransactionAbortedException), so this call was not sent. " +
            (_described.Transient
                ? "Dispose the scope and run the whole unit of work again in a new one (IsTransient is true)."
                : "Dispose the scope; the server's error is the inner exception."),
            _described.Transient, Cause);
}
