namespace Orseis.Diagnostics;

/// <summary>
/// The OpenTelemetry database instruments a provider publishes itself for its own pool and commands, on its own meter
/// (under the conventions' current or previous names). For each of them Orseis publishes its own figure under an
/// <c>orseis.*</c> name instead of the conventional one, so a backend summing a conventional instrument counts each
/// connection and each command once (<see cref="OrseisMetrics"/>).
/// </summary>
[Flags]
internal enum ProviderInstruments
{
    /// <summary>The provider publishes nothing (MySql.Data, SqlClient's EventCounters are no meter, SQLite).</summary>
    None = 0,

    /// <summary>
    /// The pool's <c>db.client.connection.*</c> (Npgsql 8+: <c>db.client.connection.count</c>, <c>.max</c> and its own
    /// pending and timeout counts; MySqlConnector 2.3+: <c>db.client.connections.usage</c>, <c>.max</c>,
    /// <c>.pending_requests</c>, <c>.timeouts</c>, <c>.wait_time</c>, <c>.use_time</c>).
    /// </summary>
    Pool = 1,

    /// <summary><c>db.client.operation.duration</c> per command (Npgsql 8+; MySqlConnector has no command instruments).</summary>
    OperationDuration = 2,
}
