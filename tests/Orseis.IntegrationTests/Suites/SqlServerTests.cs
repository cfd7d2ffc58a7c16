using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>The server suite on SQL Server through Microsoft.Data.SqlClient, when ORSEIS_SQLSERVER is set.</summary>
public sealed class SqlServerTests() : ServerSuite(new SqlServerDialect())
{
    [SqlServerFact] public Task Modes_give_identical_results() => Both_modes_and_a_session_give_identical_results();

    [SqlServerFact] public void Session_state() => Session_state_survives_in_reuse_modes_and_not_across_pooled_opens();

    [SqlServerFact] public Task Scope_state() => A_scope_runs_back_to_back_calls_on_one_server_session_and_the_next_scope_gets_a_reset_one();

    [SqlServerFact] public Task Scope_streams() => Streams_open_side_by_side_in_a_scope_run_on_separate_connections();

    [SqlServerFact] public Task Scope_faults() => A_connection_killed_or_a_call_cancelled_while_parked_leaves_nothing_wrong();

    [SqlServerFact] public Task Concurrent_misuse() => Concurrent_use_of_one_session_is_caught();

    [SqlServerFact] public void Killed_session() => A_killed_session_connection_is_reported_and_reopened_outside_a_transaction();

    [SqlServerFact] public void Killed_reuse_connection() => A_killed_reuse_connection_is_reported_and_reopened();

    [SqlServerFact] public Task Killed_stream() => A_killed_connection_under_a_stream_is_reported_and_reopened();

    [SqlServerFact] public void Killed_in_transaction() => A_connection_killed_inside_a_transaction_throws_until_the_transaction_is_disposed();

    [SqlServerFact] public Task Rolled_back() => A_rolled_back_transaction_leaves_nothing_behind();

    [SqlServerFact] public void Interpolated() => Interpolated_sql_is_parameterised_on_the_server();

    [SqlServerFact] public Task Error_after_scalar() => An_error_after_the_scalar_value_is_thrown_not_lost();

    [SqlServerFact] public Task Dapper_findings() => Arguments_and_conversions_behave_as_Dapper_users_expect();

    [SqlServerFact] public Task Literals() => Literals_are_written_into_the_sql_in_every_mode("select top {=take} id from {0} order by id");

    [SqlServerFact] public void String_shape() => A_string_parameters_shape_reaches_the_server();

    [SqlServerFact] public Task Grid_unbuffered() => A_grid_reads_unbuffered_and_lets_go_after_its_last_result_set();

    [SqlServerFact] public void Guid_not_text() => A_guid_column_is_not_read_into_a_string_member("select newid() as Id");

    [SqlServerFact] public Task Cancelled() => A_cancelled_statement_stops_on_the_server_and_the_connection_is_usable_after();

    [SqlServerFact] public Task Busy_transaction() => Commit_rollback_and_dispose_while_the_session_is_busy_change_nothing();

    [SqlServerFact] public Task Dead_transaction() => A_transaction_whose_connection_died_says_what_the_server_did();

    [SqlServerFact] public Task Killed_during_call() => A_connection_killed_during_a_call_is_reported_alike_in_every_mode();

    [SqlServerFact] public Task Killed_between_calls() => A_connection_killed_between_calls_is_replaced_in_every_mode();

    [SqlServerFact] public Task Command_timeout() => A_command_timeout_is_its_own_error_in_every_mode();

    [SqlServerFact] public Task Cancelled_every_shape() => A_cancelled_call_of_every_shape_returns_at_once_and_gives_its_connection_back();

    [SqlServerFact] public Task Execute_many() => A_sequence_of_arguments_runs_once_per_item_in_every_mode();

    [SqlServerFact] public Task Execute_many_batched() => A_long_sequence_gives_the_same_rows_in_every_mode_sync_and_async_and_rolls_back_with_its_transaction();

    [SqlServerFact] public Task Execute_many_binding() => Each_item_of_a_sequence_expands_its_lists_and_uses_type_handlers_in_every_mode();

    [SqlServerFact] public Task Execute_many_cancelled() => A_cancelled_sequence_stops_between_batches();

    [SqlServerFact] public Task Execute_many_timeout() => A_batch_that_outlives_its_timeout_is_a_command_timeout_in_every_mode();

    [SqlServerFact] public Task Multi_mapping_and_type_handlers() => Joins_map_onto_several_types_and_type_handlers_convert_both_ways_in_every_mode();

    [SqlServerFact] public Task Several_result_sets() => Several_result_sets_of_one_command_are_read_in_order_in_every_mode();
}
