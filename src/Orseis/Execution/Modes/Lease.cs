using System.Data.Common;
using Orseis.Diagnostics.Detectors;

namespace Orseis.Execution.Modes;

/// <summary>
/// An open connection from <see cref="PoolContext.OpenAsync"/> and its hold in the pool's telemetry (which slot of the
/// holder table it sits in, <see cref="HolderTable.NoHold"/> when untracked): given back whole to
/// <see cref="PoolContext.CloseAsync"/>, so a release finds its hold without hashing the connection.
/// </summary>
/// <param name="Connection">The open connection.</param>
/// <param name="Hold">Its hold, from <see cref="Diagnostics.PoolTelemetry.Acquired"/>.</param>
/// <param name="Scope">The <see cref="ConnectionScope"/>'s slot the call ran in, which may park the connection when it ends;
/// null outside a scope.</param>
/// <param name="Command">In a scope, the command kept with the connection (its parameters cleared): parked with it, taken with
/// it by the scope's next call (<see cref="ScopeSlot.RentCommand"/>), disposed when the connection goes back to the pool.
/// Null outside a scope, or when the connection has none (newly opened, or its last call failed).</param>
internal readonly record struct Lease(DbConnection Connection, int Hold, ScopeSlot? Scope = null, DbCommand? Command = null);
