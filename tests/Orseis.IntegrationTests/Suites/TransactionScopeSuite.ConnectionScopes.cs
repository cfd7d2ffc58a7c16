using System.Transactions;

namespace Orseis.IntegrationTests.Suites;

/// <summary>A <see cref="ConnectionScope"/> around <see cref="TransactionScope"/>s: the transaction decides, the connection scope steps aside.</summary>
public abstract partial class TransactionScopeSuite
{
    protected async Task A_connection_scope_steps_aside_for_a_transaction_scope_and_parks_again_after_it()
    {
        // A window long enough that the parked connection waits out the transaction's calls on a loaded machine.
        Database db = Dialect.Open(ExecutionMode.OpenPerCall, configure: o => o.ScopeIdleWindow = TimeSpan.FromSeconds(10));
        _owned.Add(db);
        await using ConnectionScope connections = db.BeginScope();
        Assert.Equal(0, await db.ScalarAsync<int>(Text($"select count(*) from {Table}"))); // parks a connection outside the transaction
        using (new TransactionScope(TransactionScopeAsyncFlowOption.Enabled))
        {
            // Calls in the transaction run on the provider's enlisted connection, never on the parked one.
            Assert.Equal(1, await db.ExecuteAsync(Insert, new { id = 1 }));
            Assert.Equal(1, db.Execute(Insert, new { id = 2 }));
            Assert.Equal(2, await db.ScalarAsync<int>(Text($"select count(*) from {Table}")));
        }

        Assert.Equal(0, connections.ReusedCalls);
        Assert.Equal(0, Committed()); // not completed: rolled back, as without a connection scope
        Assert.Equal(0, await db.ScalarAsync<int>(Text($"select count(*) from {Table}"))); // the parked connection, outside it
        Assert.Equal(1, connections.ReusedCalls);
    }
}
