using System.Data.Common;

namespace Orseis.Execution;

/// <summary><see cref="ExecutionMode.OpenPerCall"/>: every call opens a pooled connection and disposes it.</summary>
internal sealed class OpenPerCallSource(PoolContext pool, string owner) : ConnectionSource(pool, typeof(Database))
{
    protected override ValueTask<DbConnection> AcquireCoreAsync(bool async, bool forStream, CancellationToken cancellationToken) =>
        Pool.OpenAsync(async, owner, heldByDesign: false, cancellationToken);

    public override ValueTask ReleaseAsync(DbConnection connection, bool async) => Pool.CloseAsync(connection, async);

    public override Exception? TranslateFailure(DbConnection connection, Exception error) =>
        ConnectionFailures.Translate(connection, error, owner, inTransaction: false);

    public override void Abandon(DbConnection connection, DbCommand command, Task pending) => Pool.CloseWhenDone(connection, command, pending);
}
