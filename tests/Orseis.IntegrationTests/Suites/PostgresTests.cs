using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>The server suite on PostgreSQL through Npgsql (a private server started by scripts/test.sh).</summary>
public sealed class PostgresTests() : ServerSuite(new PostgresDialect())
{
    [PostgresFact]
    public Task Sql_text() => Names_lists_and_literals_in_strings_and_comments_reach_the_server_as_written(
        "$q$ @ids {=n} $q$ || E'\\' @id' /* /* @ids */ {=n} */", " @ids {=n} ' @id");

    [PostgresFact] public void Report_names_its_provider() => The_report_names_its_own_provider("Npgsql", "MySql");

    [PostgresFact] public Task Modes_give_identical_results() => Both_modes_and_a_session_give_identical_results();

    [PostgresFact] public void Session_state() => Session_state_survives_in_reuse_modes_and_not_across_pooled_opens();

    [PostgresFact] public Task Scope_state() => A_scope_runs_back_to_back_calls_on_one_server_session_and_the_next_scope_gets_a_reset_one();

    [PostgresFact] public Task Scope_streams() => Streams_open_side_by_side_in_a_scope_run_on_separate_connections();

    [PostgresFact] public Task Scope_faults() => A_connection_killed_or_a_call_cancelled_while_parked_leaves_nothing_wrong();

    [PostgresFact] public Task Concurrent_misuse() => Concurrent_use_of_one_session_is_caught();

    [PostgresFact] public void Killed_session() => A_killed_session_connection_is_reported_and_reopened_outside_a_transaction();

    [PostgresFact] public void Killed_reuse_connection() => A_killed_reuse_connection_is_reported_and_reopened();

    [PostgresFact] public Task Killed_stream() => A_killed_connection_under_a_stream_is_reported_and_reopened();

    [PostgresFact] public void Killed_in_transaction() => A_connection_killed_inside_a_transaction_throws_until_the_transaction_is_disposed();

    [PostgresFact] public Task Rolled_back() => A_rolled_back_transaction_leaves_nothing_behind();

    [PostgresFact] public void Interpolated() => Interpolated_sql_is_parameterised_on_the_server();

    [PostgresFact] public Task Error_after_scalar() => An_error_after_the_scalar_value_is_thrown_not_lost();

    [PostgresFact] public Task Dapper_findings() => Arguments_and_conversions_behave_as_Dapper_users_expect();

    [PostgresFact] public Task Unsendable_values() => A_value_the_provider_cannot_send_is_refused_without_quoting_it();

    [PostgresFact] public Task Literals() =>
        Literals_are_written_into_the_sql_in_every_mode("select id from {0} order by id limit {=take}");

    [PostgresFact] public void String_shape() => A_string_parameters_shape_reaches_the_server();

    [PostgresFact] public Task Grid_unbuffered() => A_grid_reads_unbuffered_and_lets_go_after_its_last_result_set();

    [PostgresFact] public void Guid_not_text() => A_guid_column_is_not_read_into_a_string_member("select gen_random_uuid() as Id");

    [PostgresFact] public Task Cancelled() => A_cancelled_statement_stops_on_the_server_and_the_connection_is_usable_after();

    [PostgresFact] public Task Busy_transaction() => Commit_rollback_and_dispose_while_the_session_is_busy_change_nothing();

    [PostgresFact] public Task Deadlock_victim() => A_deadlock_victims_transaction_is_dead_until_it_is_disposed();

    [PostgresFact] public Task Deadlock_finding() => A_deadlock_is_a_lock_conflict_finding_with_its_statement();

    [PostgresFact] public Task Dead_transaction() => A_transaction_whose_connection_died_says_what_the_server_did();

    [PostgresFact] public Task Killed_during_call() => A_connection_killed_during_a_call_is_reported_alike_in_every_mode();

    [PostgresFact] public Task Killed_between_calls() => A_connection_killed_between_calls_is_replaced_in_every_mode();

    [PostgresFact] public Task Command_timeout() => A_command_timeout_is_its_own_error_in_every_mode();

    [PostgresFact] public Task Cancelled_every_shape() => A_cancelled_call_of_every_shape_returns_at_once_and_gives_its_connection_back();

    [PostgresFact] public Task Execute_many() => A_sequence_of_arguments_runs_once_per_item_in_every_mode();

    [PostgresFact] public Task Execute_many_batched() => A_long_sequence_gives_the_same_rows_in_every_mode_sync_and_async_and_rolls_back_with_its_transaction();

    [PostgresFact] public Task Execute_many_binding() => Each_item_of_a_sequence_expands_its_lists_and_uses_type_handlers_in_every_mode();

    // Npgsql runs a batch outside a transaction in an implicit one, and names the failed command only when asked to.
    [PostgresFact] public Task Execute_many_failure() => A_failing_item_is_named_and_the_rest_does_not_run(batched: true, itemNamed: false, batchIsAtomic: true);

    [PostgresFact]
    public Task Execute_many_failure_named() => A_failing_item_is_named_and_the_rest_does_not_run(
        batched: true, itemNamed: true, batchIsAtomic: true, Dialect.ConnectionString + ";Include Failed Batched Command=true");

    [PostgresFact] public Task Execute_many_cancelled() => A_cancelled_sequence_stops_between_batches();

    [PostgresFact] public Task Execute_many_timeout() => A_batch_that_outlives_its_timeout_is_a_command_timeout_in_every_mode();

    [PostgresFact] public Task Multi_mapping_and_type_handlers() => Joins_map_onto_several_types_and_type_handlers_convert_both_ways_in_every_mode();

    [PostgresFact] public Task Several_result_sets() => Several_result_sets_of_one_command_are_read_in_order_in_every_mode();

    [PostgresFact] public Task Rows_without_a_static_type() => Rows_without_a_static_type_read_the_same_in_every_mode();

    [PostgresFact] public Task Dapper_mapping_rules() => Tuples_members_nulls_and_splits_map_as_Dapper_users_expect();
}

/// <summary>PostgreSQL-only checks: the DbDataSource constructor and what the default pool name reveals.</summary>
public sealed class PostgresDataSourceTests
{
    [PostgresFact]
    public async Task A_database_over_an_npgsql_data_source_runs_calls_and_names_its_pool_without_credentials()
    {
        var builder = new Npgsql.NpgsqlConnectionStringBuilder(new PostgresDialect().ConnectionString) { Password = "not-a-real-secret" };
        await using var source = Npgsql.NpgsqlDataSource.Create(builder.ConnectionString);
        await using var db = new Database(source, new OrseisOptions { Mode = ExecutionMode.ReuseConnection });
        Assert.Equal(42, await db.ScalarAsync<int>("select @x::int", new { x = 42 }));
        Assert.Equal($"postgresql:{builder.Host}:{builder.Port}/{builder.Database}", db.PoolName);
    }

    public sealed class Strict
    {
        public int I { get; set; }
        public DateTime When { get; set; }
        public DateOnly Day { get; set; }
        public decimal Amount { get; set; }
        public Guid Key { get; set; }
        public bool Flag { get; set; }
    }

    [PostgresFact]
    public void A_null_into_a_member_that_cannot_hold_it_is_named_whatever_the_column_type()
    {
        using var db = new Database(Npgsql.NpgsqlFactory.Instance, new PostgresDialect().ConnectionString);
        string[] columns = ["i", "when", "day", "amount", "key", "flag"];
        foreach (string column in columns)
        {
            string select = string.Join(", ", columns.Select(c => c == column ? $"null::{Types[c]} as \"{c}\"" : $"{Values[c]}::{Types[c]} as \"{c}\""));
            var error = Assert.Throws<MappingException>(() => db.QuerySingle<Strict>("select " + select));
            Assert.Equal(column, error.Column);
            Assert.Contains("is NULL", error.Message, StringComparison.Ordinal);
        }

        Strict ok = db.QuerySingle<Strict>("select " + string.Join(", ", columns.Select(c => $"{Values[c]}::{Types[c]} as \"{c}\"")));
        Assert.Equal((1, new DateOnly(2024, 1, 2), 2.5m, true), (ok.I, ok.Day, ok.Amount, ok.Flag));
    }

    private static readonly Dictionary<string, string> Types = new()
    {
        ["i"] = "int", ["when"] = "timestamp", ["day"] = "date", ["amount"] = "numeric", ["key"] = "uuid", ["flag"] = "boolean",
    };

    private static readonly Dictionary<string, string> Values = new()
    {
        ["i"] = "1", ["when"] = "'2024-01-01 10:00'", ["day"] = "'2024-01-02'", ["amount"] = "2.5", ["key"] = "'6f9619ff-8b86-d011-b42d-00c04fc964ff'", ["flag"] = "true",
    };
}
