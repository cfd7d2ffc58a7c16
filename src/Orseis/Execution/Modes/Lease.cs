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
/// <param name="Scope">The connection as a <see cref="ConnectionScope"/>'s call holds it (its slot, which may park it when the call
/// ends, and the command kept with it); null outside a scope.</param>
internal readonly record struct Lease(DbConnection Connection, int Hold, ScopeConnection? Scope = null);
