using System.Data.Common;

namespace Orseis.Execution;

/// <summary><see cref="ExecutionMode.OpenPerCall"/>: every call opens a pooled connection and disposes it.</summary>
/// <param name="pool">The pool's context.</param>
/// <param name="poolName">The pool's name, for messages.</param>
internal sealed class OpenPerCallSource(PoolContext pool, string poolName) : ConnectionSource(pool, typeof(Database))
{
    private readonly string _callOwner = $"a call on '{poolName}' (OpenPerCall mode)";
    private readonly string _streamOwner = $"a stream on '{poolName}' (OpenPerCall mode)";

    // A stream holds its connection across the caller's own code, like a session: the held-too-long detector watches it.
    protected override ValueTask<Lease> AcquireCoreAsync(bool async, bool forStream, CancellationToken cancellationToken) =>
        Pool.OpenAsync(async, forStream ? _streamOwner : _callOwner, heldByDesign: false, heldAcrossCalls: forStream, cancellationToken);

    // A connection opened inside the scope joins it, when the provider enlists.
    protected override InvalidOperationException? NotInScope(System.Transactions.Transaction ambient) =>
        Pool.WhyNoEnlistment is { } why
            ? AmbientTransactions.NotJoined(
                $"'{poolName}' (OpenPerCall mode)",
                why,
                "Use a session's own transaction instead (db.OpenSession(), then session.BeginTransaction()).")
            : null;

    public override ValueTask ReleaseAsync(Lease lease, bool async) => Pool.CloseAsync(lease, async);

    public override Exception? TranslateFailure(DbConnection connection, Exception error) =>
        ConnectionFailures.Translate(connection, error, _callOwner, inTransaction: false);

    public override void Abandon(Lease lease, DbCommand command, Task pending) =>
        Pool.CloseWhenDone(lease, command, pending);
}
