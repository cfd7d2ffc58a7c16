using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// The server suite on MariaDB (./scripts/test.sh starts a private mariadbd and sets ORSEIS_MYSQL), once per MySQL provider.
/// </summary>
public abstract class MariaDbSuite(MySqlProvider provider) : ServerSuite(new MySqlDialect(provider))
{

    [MySqlFact] public Task Modes_give_identical_results() => Both_modes_and_a_session_give_identical_results();

    [MySqlFact] public void Session_state() => Session_state_survives_in_reuse_modes_and_not_across_pooled_opens();

    [MySqlFact] public Task Scope_state() => A_scope_runs_back_to_back_calls_on_one_server_session_and_the_next_scope_gets_a_reset_one();

    [MySqlFact] public Task Scope_streams() => Streams_open_side_by_side_in_a_scope_run_on_separate_connections();

    [MySqlFact] public Task Scope_faults() => A_connection_killed_or_a_call_cancelled_while_parked_leaves_nothing_wrong();

    [MySqlFact] public Task Concurrent_misuse() => Concurrent_use_of_one_session_is_caught();

    [MySqlFact] public void Killed_session() => A_killed_session_connection_is_reported_and_reopened_outside_a_transaction();

    [MySqlFact] public void Killed_reuse_connection() => A_killed_reuse_connection_is_reported_and_reopened();

    [MySqlFact] public Task Killed_stream() => A_killed_connection_under_a_stream_is_reported_and_reopened();

    [MySqlFact] public void Killed_in_transaction() => A_connection_killed_inside_a_transaction_throws_until_the_transaction_is_disposed();

    [MySqlFact] public Task Rolled_back() => A_rolled_back_transaction_leaves_nothing_behind();

    [MySqlFact] public void Interpolated() => Interpolated_sql_is_parameterised_on_the_server();

    [MySqlFact] public Task Error_after_scalar() => An_error_after_the_scalar_value_is_thrown_not_lost();

    [MySqlFact] public Task Dapper_findings() => Arguments_and_conversions_behave_as_Dapper_users_expect();

    [MySqlFact] public Task Unsendable_values() => A_value_the_provider_cannot_send_is_refused_without_quoting_it();

    [MySqlFact] public Task Literals() =>
        Literals_are_written_into_the_sql_in_every_mode("select id from {0} order by id limit {=take}");

    [MySqlFact] public void String_shape() => A_string_parameters_shape_reaches_the_server();

    [MySqlFact] public Task Grid_unbuffered() => A_grid_reads_unbuffered_and_lets_go_after_its_last_result_set();

    [MySqlFact] public Task Cancelled() => A_cancelled_statement_stops_on_the_server_and_the_connection_is_usable_after();

    [MySqlFact] public Task Busy_transaction() => Commit_rollback_and_dispose_while_the_session_is_busy_change_nothing();

    [MySqlFact] public Task Deadlock_victim() => A_deadlock_victims_transaction_is_dead_until_it_is_disposed();

    [MySqlFact] public Task Deadlock_finding() => A_deadlock_is_a_lock_conflict_finding_with_its_statement();

    [MySqlFact] public Task Statement_only_failure() => A_failed_statement_that_ends_only_itself_keeps_the_transaction(timeoutClosesConnection: provider == MySqlProvider.MySqlData);

    [MySqlFact] public Task Dead_transaction() => A_transaction_whose_connection_died_says_what_the_server_did();

    [MySqlFact] public Task Killed_during_call() => A_connection_killed_during_a_call_is_reported_alike_in_every_mode();

    [MySqlFact] public Task Killed_between_calls() => A_connection_killed_between_calls_is_replaced_in_every_mode();

    [MySqlFact] public Task Command_timeout() => A_command_timeout_is_its_own_error_in_every_mode();

    [MySqlFact] public Task Cancelled_every_shape() => A_cancelled_call_of_every_shape_returns_at_once_and_gives_its_connection_back();

    [MySqlFact] public Task Execute_many() => A_sequence_of_arguments_runs_once_per_item_in_every_mode();

    [MySqlFact] public Task Execute_many_batched() => A_long_sequence_gives_the_same_rows_in_every_mode_sync_and_async_and_rolls_back_with_its_transaction();

    [MySqlFact] public Task Execute_many_binding() => Each_item_of_a_sequence_expands_its_lists_and_uses_type_handlers_in_every_mode();

    // MySqlConnector batches, stopping at the failed command without naming it; MySql.Data runs a command per item.
    [MySqlFact]
    public Task Execute_many_failure() => A_failing_item_is_named_and_the_rest_does_not_run(
        batched: provider == MySqlProvider.MySqlConnector, itemNamed: provider == MySqlProvider.MySqlData, batchIsAtomic: false);

    [MySqlFact] public Task Execute_many_cancelled() => A_cancelled_sequence_stops_between_batches();

    [MySqlFact] public Task Execute_many_timeout() => A_batch_that_outlives_its_timeout_is_a_command_timeout_in_every_mode();

    [MySqlFact] public Task Multi_mapping_and_type_handlers() => Joins_map_onto_several_types_and_type_handlers_convert_both_ways_in_every_mode();

    [MySqlFact] public Task Several_result_sets() => Several_result_sets_of_one_command_are_read_in_order_in_every_mode();

    [MySqlFact] public Task Rows_without_a_static_type() => Rows_without_a_static_type_read_the_same_in_every_mode();

    [MySqlFact] public Task Dapper_mapping_rules() => Tuples_members_nulls_and_splits_map_as_Dapper_users_expect();

    [MySqlFact]
    public Task Sql_text() =>
        Names_lists_and_literals_in_strings_and_comments_reach_the_server_as_written("'it''s \\\\ @ids' # @ids {=n}\n", "it's \\ @ids");

    [MySqlFact]
    public void Report_names_its_provider() => The_report_names_its_own_provider(
        provider == MySqlProvider.MySqlData ? "MySql.Data" : "MySqlConnector",
        provider == MySqlProvider.MySqlData ? "MySqlConnector" : "MySql.Data");
}

/// <summary>The suite through MySqlConnector.</summary>
public sealed class MySqlTests() : MariaDbSuite(MySqlProvider.MySqlConnector)
{
    // MySqlConnector reads a CHAR(36) column as a Guid.
    [MySqlFact]
    public void Guid_not_text() => A_guid_column_is_not_read_into_a_string_member(
        "select Id from orseis_guid_text limit 1",
        "create table if not exists orseis_guid_text (Id char(36) not null); insert into orseis_guid_text values (uuid())");
}

/// <summary>
/// The same suite on the same MariaDB through Oracle's MySql.Data 8.0.16: Orseis over a provider it has no special
/// knowledge of (no DateOnly/TimeOnly parameters, pooled connections not reset unless asked).
/// </summary>
public sealed class MySqlDataTests() : MariaDbSuite(MySqlProvider.MySqlData);
