using System.Data.Common;

namespace Orseis.Execution.Modes;

/// <summary>
/// A source that keeps one connection across calls (<see cref="SessionSource"/>, <see cref="ReuseConnectionSource"/>): commands,
/// failures and abandoned calls go through its <see cref="KeptConnection"/>; each subclass says how a call gives the
/// connection back (<see cref="Leave"/>).
/// </summary>
internal abstract class KeptSource(PoolContext pool, Type ownerType, KeptConnection kept) : ConnectionSource(pool, ownerType)
{
    /// <summary>The kept connection.</summary>
    public KeptConnection Kept { get; } = kept;

    /// <summary>Ends a call's hold on the kept connection (the session's guard, the shared connection's gate).</summary>
    protected abstract void Leave();

    public override ValueTask ReleaseAsync(Lease lease, bool async, bool failed = false)
    {
        Leave();
        return default;
    }

    public override DbCommand RentCommand(in Lease lease) => Kept.RentCommand(lease.Connection);

    public override void ReturnCommand(in Lease lease, DbCommand command, bool failed) => Kept.ReturnCommand(command, failed);

    public override Exception? TranslateFailure(DbConnection connection, Exception error) => Kept.Translate(connection, error);

    public override void NoteFailure(DbConnection connection, Exception error) => Kept.NoteFailure(connection, error);

    public override async ValueTask<Exception?> SettleAsync(Lease lease, bool async)
    {
        await Kept.SettleAsync(lease, async).ConfigureAwait(false);
        return null;
    }

    public override void Abandon(Lease lease, DbCommand command, Task pending)
    {
        Kept.Discard(lease, command, pending);
        Leave();
    }
}
