using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>The server suite on PostgreSQL through Npgsql (a private server started by scripts/test.sh).</summary>
public sealed class PostgresTests() : ServerSuite(new PostgresDialect())
{
    [PostgresFact] public Task Modes_give_identical_results() => Both_modes_and_a_session_give_identical_results();

    [PostgresFact] public void Session_state() => Session_state_survives_in_reuse_modes_and_not_across_pooled_opens();

    [PostgresFact] public Task Concurrent_misuse() => Concurrent_use_of_one_session_is_caught();

    [PostgresFact] public void Killed_session() => A_killed_session_connection_is_reported_and_reopened_outside_a_transaction();

    [PostgresFact] public void Killed_reuse_connection() => A_killed_reuse_connection_is_reported_and_reopened();

    [PostgresFact] public void Killed_in_transaction() => A_connection_killed_inside_a_transaction_throws_until_the_transaction_is_disposed();

    [PostgresFact] public Task Rolled_back() => A_rolled_back_transaction_leaves_nothing_behind();

    [PostgresFact] public void Interpolated() => Interpolated_sql_is_parameterised_on_the_server();
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
}
