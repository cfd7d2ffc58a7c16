using System.Data.Common;

namespace Orseis.Execution.Scopes;

/// <summary>
/// One connection a <see cref="ConnectionScope"/>'s call opened, with what travels with it from call to call: the command its
/// last call used (so SQLite keeps its prepared statement) and the facts of its park. Made when a call of the scope opens a
/// connection (<see cref="Modes.Lease.Scope"/>); parked in its <see cref="ScopeSlot"/> between calls, the slot's state being
/// this object itself.
/// </summary>
/// <remarks>
/// Whoever holds the connection owns the holder: the call running on it, or the slot while it is parked (and then the one
/// call, sweep or end that takes it out with the slot's compare-exchange). So its fields are read and written without
/// atomics: the slot's compare-exchange that parks it publishes them, and the one that takes it out reads them after.
/// </remarks>
/// <param name="slot">The scope's slot.</param>
/// <param name="connection">The connection.</param>
internal sealed class ScopeConnection(ScopeSlot slot, DbConnection connection)
{
    /// <summary>The scope's slot, which may park the connection when a call ends.</summary>
    public readonly ScopeSlot Slot = slot;

    /// <summary>The connection.</summary>
    public readonly DbConnection Connection = connection;

    /// <summary>The command kept for the next call on the connection; null while a call uses it, or when none is kept.</summary>
    public DbCommand? Command;

    /// <summary>The kept command's timeout as the provider made it, given back to it when a call changed it.</summary>
    public int DefaultTimeout;

    /// <summary>The text of the call ending now (<see cref="TryKeepCommand"/>), until the slot's park reads it.</summary>
    public string? Statement;

    /// <summary>When it parked: a timestamp while the pool's telemetry is timed, else 0.</summary>
    public long ParkedAt;

    /// <summary>
    /// The holder table's slot it kept as it parked (<see cref="Diagnostics.Detectors.HolderTable.TryEndKeeping"/>): its next
    /// hold's, or freed when it leaves its parking otherwise; <see cref="Diagnostics.Detectors.HolderTable.NoHold"/> for none.
    /// </summary>
    public int ParkedHold = Diagnostics.Detectors.HolderTable.NoHold;

    /// <summary>The sweep's tick when it parked (<see cref="ParkSweep.Tick"/>).</summary>
    public long ParkedTick;

    /// <summary>The statement it was parked after (<see cref="ParkMemory.KeyOf"/>).</summary>
    public int ParkedKey;

    /// <summary>
    /// Calls that took it parked, while it is its slot's first connection (<see cref="ScopeSlot.Reuses"/>): counted by the
    /// call that took it, which owns the holder then, with no atomic.
    /// </summary>
    public long Reuses;

    /// <summary>Whether it is its slot's first connection, which counts its reuses in <see cref="Reuses"/>.</summary>
    public bool Primary;

    /// <summary>The command for a call on the connection: the last call's, or a new one. <paramref name="connection"/> is
    /// <see cref="Connection"/>.</summary>
    public DbCommand RentCommand(DbConnection connection)
    {
        DbCommand? command = Command;
        if (command is null)
        {
            command = connection.CreateCommand();
            DefaultTimeout = command.CommandTimeout;
            return command;
        }

        Command = null; // the call's now: a failed call disposes it
        if (command.CommandTimeout != DefaultTimeout)
            command.CommandTimeout = DefaultTimeout;
        return command;
    }

    /// <summary>Keeps a call's command (its parameters cleared) for the next call on the connection; false when it is not kept.</summary>
    public bool TryKeepCommand(DbCommand command, bool failed)
    {
        Statement = command.CommandText; // for the park, which the call's end runs next
        if (failed)
            return false;
        Command = command;
        return true;
    }

    /// <summary>Disposes the kept command, if any (the connection goes back to the pool).</summary>
    public void DropCommand()
    {
        DbCommand? command = Command;
        Command = null;
        command?.Dispose();
    }
}
