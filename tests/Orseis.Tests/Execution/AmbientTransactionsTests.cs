using System.Transactions;
using Microsoft.Data.Sqlite;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Execution;

/// <summary>
/// <see cref="AmbientTransactions"/>: which providers' connections join an ambient <see cref="TransactionScope"/> as they
/// open (read from the provider's traits and the connection string, no server needed), and what the sources do under a
/// scope when the provider joins it. The sources run over SQLite described as Npgsql: Orseis decides from the traits
/// alone, and SQLite's connection stands in for a connection that enlisted.
/// </summary>
public sealed class AmbientTransactionsTests : IAsyncDisposable
{
    private readonly SqliteFile _file = new();
    private PoolContext? _pool;

    public async ValueTask DisposeAsync()
    {
        if (_pool is not null)
            await _pool.DisposeAsync();
        _file.Dispose();
    }

    private static string? Why(Type providerType, string? connectionString) =>
        AmbientTransactions.WhyNoEnlistment(ProviderTraits.For(providerType), providerType, connectionString);

    public static TheoryData<Type, string, string> EnlistmentTurnedOff => new()
    {
        { typeof(Npgsql.NpgsqlFactory), "Host=db;Enlist=false", "Enlist=false" },
        { typeof(Npgsql.NpgsqlDataSource), "Host=db;Username=u;enlist=No", "Enlist=No" },
        { typeof(Microsoft.Data.SqlClient.SqlClientFactory), "Server=db;Enlist=FALSE", "Enlist=FALSE" },
        { typeof(System.Data.SqlClient.Stand.In), "Server=db;Enlist=no", "Enlist=no" },
        { typeof(MySqlConnector.MySqlConnectorFactory), "Server=db;AutoEnlist=false", "AutoEnlist=false" },
        { typeof(MySqlConnector.MySqlConnectorFactory), "Server=db;Auto Enlist=no", "Auto Enlist=no" },
        { typeof(MySql.Data.MySqlClient.MySqlClientFactory), "Server=db;Auto Enlist=False", "Auto Enlist=False" },
    };

    [Theory]
    [MemberData(nameof(EnlistmentTurnedOff))]
    public void A_connection_string_that_turns_enlistment_off_is_named(Type providerType, string connectionString, string setting) =>
        Assert.Equal($"the connection string turns enlistment off ({setting})", Why(providerType, connectionString));

    [Theory]
    [InlineData(typeof(Npgsql.NpgsqlFactory), "Host=db")]
    [InlineData(typeof(Npgsql.NpgsqlFactory), "Host=db;Enlist=true")]
    [InlineData(typeof(Npgsql.NpgsqlFactory), "Host=db;AutoEnlist=false")] // not Npgsql's key
    [InlineData(typeof(Microsoft.Data.SqlClient.SqlClientFactory), "Server=db;Enlist=yes")]
    [InlineData(typeof(MySqlConnector.MySqlConnectorFactory), "Server=db;Enlist=false")] // not MySqlConnector's key
    [InlineData(typeof(MySqlConnector.MySqlConnectorFactory), "Server=db;AutoEnlist=true")]
    [InlineData(typeof(MySql.Data.MySqlClient.MySqlClientFactory), "Server=db")]
    [InlineData(typeof(Npgsql.NpgsqlFactory), null)]
    [InlineData(typeof(Npgsql.NpgsqlFactory), "not a connection string")] // the provider itself refuses it on open
    public void Providers_that_enlist_join_a_scope_unless_told_not_to(Type providerType, string? connectionString) =>
        Assert.Null(Why(providerType, connectionString));

    [Fact]
    public void Sqlite_and_unknown_providers_say_why_they_do_not_join()
    {
        Assert.Equal("Microsoft.Data.Sqlite connections never join a TransactionScope", Why(typeof(SqliteFactory), "Data Source=x.db;Enlist=true"));
        Assert.Equal(
            "Orseis does not know whether System.Data.SQLite.Stand connections join a TransactionScope",
            Why(typeof(System.Data.SQLite.Stand.In), "Data Source=x.db"));
    }

    [Fact]
    public void A_transaction_is_active_until_it_commits_rolls_back_or_is_disposed()
    {
        using (var committed = new CommittableTransaction())
        {
            Assert.True(AmbientTransactions.IsActive(committed));
            committed.Commit();
            Assert.False(AmbientTransactions.IsActive(committed));
        }

        using (var rolledBack = new CommittableTransaction())
        {
            rolledBack.Rollback();
            Assert.False(AmbientTransactions.IsActive(rolledBack));
        }

        var disposed = new CommittableTransaction();
        disposed.Dispose();
        Assert.False(AmbientTransactions.IsActive(disposed));
    }

    private PoolContext Pool(Type providerType) =>
        _pool = new PoolContext(SqliteFactory.Instance.CreateDataSource(_file.ConnectionString), ownsSource: true, new OrseisOptions(), providerType);

    [Fact]
    public async Task Open_per_call_on_a_provider_that_enlists_runs_calls_under_a_scope()
    {
        var source = new OpenPerCallSource(Pool(typeof(Npgsql.NpgsqlDataSource)), "p");
        using var scope = new TransactionScope(TransactionScopeAsyncFlowOption.Enabled);
        Lease connection = await source.AcquireAsync(true, forStream: false, CancellationToken.None);
        await source.ReleaseAsync(connection, true);
    }

    [Fact]
    public void Open_per_call_on_a_provider_that_does_not_enlist_refuses_naming_the_pool_and_the_fix()
    {
        var source = new OpenPerCallSource(Pool(typeof(SqliteConnection)), "p");
        using var scope = new TransactionScope();
        var refused = Assert.Throws<InvalidOperationException>(() => source.AcquireAsync(false, forStream: false, CancellationToken.None));
        Assert.Equal(
            "A TransactionScope is active, but Microsoft.Data.Sqlite connections never join a TransactionScope, so this call on " +
            "'p' (OpenPerCall mode) would run outside the scope and its changes would stay even if the scope is not completed. " +
            "Orseis refuses the call instead. Use a session's own transaction instead (db.OpenSession(), then session.BeginTransaction()). " +
            "To run the call outside the scope on purpose, wrap it in a TransactionScope with TransactionScopeOption.Suppress.",
            refused.Message);
    }

    [Fact]
    public void The_shared_connection_of_reuse_connection_mode_is_in_no_scope_whatever_the_provider()
    {
        using var source = new ReuseConnectionSource(Pool(typeof(Npgsql.NpgsqlDataSource)), "database 'd' (ReuseConnection mode)");
        using var scope = new TransactionScope();
        var refused = Assert.Throws<InvalidOperationException>(() => source.AcquireAsync(false, forStream: false, CancellationToken.None));
        Assert.Equal(
            "A TransactionScope is active, but ReuseConnection mode keeps one connection for every caller, opened outside this scope, " +
            "so this call on database 'd' (ReuseConnection mode) would run outside the scope and its changes would stay even if the scope " +
            "is not completed. Orseis refuses the call instead. Run the scope's work on a Database in OpenPerCall mode, or on a session " +
            "opened inside the scope (db.OpenSession() after creating the scope). To run the call outside the scope on purpose, wrap it " +
            "in a TransactionScope with TransactionScopeOption.Suppress.",
            refused.Message);
    }

    [Fact]
    public async Task A_session_opened_in_a_scope_on_a_provider_that_enlists_runs_in_it_and_nowhere_else_while_it_is_active()
    {
        var source = new SessionSource(Pool(typeof(Npgsql.NpgsqlDataSource)), "session 's'");
        using (var scope = new TransactionScope(TransactionScopeAsyncFlowOption.Enabled))
        {
            await source.Kept.EnsureOpenAsync(true, CancellationToken.None); // as db.OpenSession() does
            Lease connection = await source.AcquireAsync(true, forStream: false, CancellationToken.None);
            await source.ReleaseAsync(connection, true);
            Assert.NotNull(source.Kept.Enlisted);
            Assert.Equal(Transaction.Current, source.Kept.Enlisted);
            Assert.Equal(connection, await source.AcquireAsync(false, forStream: false, CancellationToken.None)); // still in the scope
            await source.ReleaseAsync(connection, false);

            using (new TransactionScope(TransactionScopeOption.Suppress))
            {
                var outside = Assert.Throws<InvalidOperationException>(() => source.AcquireAsync(false, forStream: false, CancellationToken.None));
                Assert.StartsWith(
                    "The connection of session 's' joined the TransactionScope the session was opened in, and that transaction is still " +
                    "active, but this call is made outside it (under TransactionScopeOption.Suppress, or from another flow): it would run " +
                    "inside the scope's transaction all the same, and be rolled back with it. Use the database, or another session, for " +
                    "work outside the scope.", outside.Message, StringComparison.Ordinal);
            }

            using (new TransactionScope(TransactionScopeOption.RequiresNew))
            {
                var other = Assert.Throws<InvalidOperationException>(() => source.AcquireAsync(false, forStream: false, CancellationToken.None));
                Assert.Equal(
                    "A TransactionScope is active, but the session's connection was opened outside this scope and did not join it, so this " +
                    "call on session 's' would run outside the scope and its changes would stay even if the scope is not completed. Orseis " +
                    "refuses the call instead. Open the session inside the scope (db.OpenSession() after creating the scope), or use the " +
                    "session's own transaction (session.BeginTransaction()). To run the call outside the scope on purpose, wrap it in a " +
                    "TransactionScope with TransactionScopeOption.Suppress.",
                    other.Message);
            }
        }

        // The scope ended (rolled back): its transaction is no longer active, so calls outside any scope run again.
        Lease after = await source.AcquireAsync(false, forStream: false, CancellationToken.None);
        await source.ReleaseAsync(after, false);
        await source.CloseAsync(false);
    }

    [Fact]
    public async Task A_session_opened_outside_any_scope_has_joined_none()
    {
        var source = new SessionSource(Pool(typeof(Npgsql.NpgsqlDataSource)), "session 's'");
        await source.Kept.EnsureOpenAsync(false, CancellationToken.None);
        Assert.Null(source.Kept.Enlisted);
        using (new TransactionScope())
            Assert.Throws<InvalidOperationException>(() => source.AcquireAsync(false, forStream: false, CancellationToken.None));
        await source.CloseAsync(false);
    }
}
