using System.Diagnostics;
using System.Globalization;
using System.Transactions;

using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// A scope whose transaction the server ended: a deadlock victim, and an enlisted connection the server killed. The scope
/// is doomed (disposing it after Complete throws <see cref="TransactionAbortedException"/>), every later call in it gets
/// an Orseis error that says so, never the provider's state exception, and nothing of it is committed.
/// </summary>
public abstract partial class TransactionScopeSuite
{
    protected async Task A_deadlock_in_a_scope_dooms_it_and_nothing_is_committed()
    {
        Database db = Open(ExecutionMode.OpenPerCall);
        _observer.Execute(Text($"insert into {Table} (id, v) values (1, 'a'), (2, 'b')"));
        await using Session other = await db.OpenSessionAsync();
        await using SessionTransaction otherTx = await other.BeginTransactionAsync();

        // The other transaction changes more rows, so InnoDB picks the scope as the victim; PostgreSQL ends the backend whose
        // deadlock check runs first, after deadlock_timeout: the other's waits are given 30 s, so that is the scope's (on a
        // loaded machine the other's check, 1 s after its own wait began, came first once).
        if (Dialect is PostgresDialect)
            await other.ExecuteAsync("set local deadlock_timeout = '30s'");
        for (int id = 10; id < 15; id++)
            await other.ExecuteAsync(Insert, new { id });

        string update = Text($"update {Table} set v = 'changed' where id = @id");
        Exception? ending = null;
        TransactionRolledBackException refused;
        using (var scope = new TransactionScope(TransactionScopeAsyncFlowOption.Enabled))
        {
            await db.ExecuteAsync(Insert, new { id = 100 });
            await db.ExecuteAsync(update, new { id = 1 });
            await Outside(() => other.ExecuteAsync(update, new { id = 2 }));
            string marker = "orseis_scope_deadlock_" + Guid.NewGuid().ToString("N")[..12];
            // On another thread: MySql.Data's async calls run synchronously (the scope flows with it).
            Task<Exception?> waiting = Outcome.OnOwnThread(() => db.ExecuteAsync(update + $" /* {marker} */", new { id = 2 }));
            await WaitUntilRunning(marker, waiting);
            Exception? otherError = await Outcome.FailureOf(() => Outside(() => other.ExecuteAsync(update, new { id = 1 })));
            Assert.Null(otherError);
            Exception deadlock = await waiting ?? throw new InvalidOperationException("the scope was not the deadlock victim");
            Assert.Contains("eadlock", deadlock.Message, StringComparison.Ordinal);

            refused = await Assert.ThrowsAsync<TransactionRolledBackException>(() => db.ExecuteAsync(Insert, new { id = 101 }));
            Assert.Throws<TransactionRolledBackException>(() => db.Scalar<int>("select 1"));
            scope.Complete();
            try
            {
                scope.Dispose();
            }
            catch (TransactionAbortedException aborted)
            {
                ending = aborted;
            }
        }

        Assert.True(refused.IsTransient);
        Assert.Same(refused.GetType(), ending?.InnerException?.GetType());
        Assert.Contains("TransactionScope", refused.Message, StringComparison.Ordinal);
        await otherTx.CommitAsync();
        Assert.Equal(0, Committed(100) + Committed(101));
        Assert.Equal(5, Committed(10, 14));
        Assert.Equal(1, await db.ScalarAsync<int>("select 1")); // outside the scope, the pool serves as before

        // Every pooled connection is one caller's again: 8 sessions at once, each in a transaction of its own, used in
        // parallel. (Rolling the scope back while the failed call still held its connection made MySql.Data put that
        // connection in its pool twice: two sessions then shared one socket, "Out of sync with server".)
        Session[] after = await Task.WhenAll(Enumerable.Range(0, 8).Select(_ => db.OpenSessionAsync()));
        await Task.WhenAll(after.Select(session => Task.Factory.StartNew(async () =>
        {
            await using SessionTransaction tx = await session.BeginTransactionAsync();
            for (int i = 0; i < 5; i++)
                Assert.Equal(i, await session.ScalarAsync<int>("select @i", new { i }));
            await tx.RollbackAsync();
            await session.DisposeAsync();
        }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default).Unwrap()));
    }

    protected async Task A_killed_enlisted_connection_reports_the_scope_and_every_later_call_says_so()
    {
        Database db = Open(ExecutionMode.OpenPerCall);
        ConnectionBrokenException broken;
        Exception? again;
        Exception? ending = null;
        using (var scope = new TransactionScope(TransactionScopeAsyncFlowOption.Enabled))
        {
            await db.ExecuteAsync(Insert, new { id = 1 });
            int backend = await db.ScalarAsync<int>(Dialect.BackendIdSql);
            using (new TransactionScope(TransactionScopeOption.Suppress, TransactionScopeAsyncFlowOption.Enabled))
                Kill(backend);

            broken = await Assert.ThrowsAsync<ConnectionBrokenException>(() => db.ExecuteAsync(Insert, new { id = 2 }));
            again = await Record.ExceptionAsync(() => db.ExecuteAsync(Insert, new { id = 3 }));
            scope.Complete();
            try
            {
                scope.Dispose();
            }
            catch (TransactionException aborted)
            {
                ending = aborted;
            }
        }

        Assert.True(broken.InTransaction);
        Assert.Contains("TransactionScope", broken.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("No transaction was open", broken.Message, StringComparison.Ordinal);
        var next = Assert.IsType<ConnectionBrokenException>(again);
        Assert.True(next.InTransaction);
        Assert.False(next.StatementMayHaveRun);
        Assert.Contains("Dispose the scope", next.Message, StringComparison.Ordinal);
        Assert.NotNull(ending);
        Assert.Equal(0, Committed());
        Assert.Equal(1, await db.ScalarAsync<int>("select 1"));
    }

    private int Committed(int from, int? to = null)
    {
        using var outside = new TransactionScope(TransactionScopeOption.Suppress);
        return _observer.Scalar<int>(Text($"select count(*) from {Table} where id between @from and @to"), new { from, to = to ?? from });
    }

    private async Task WaitUntilRunning(string marker, Task call)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < TimeSpan.FromSeconds(10))
        {
            if (call.IsCompleted)
                return;
            using (new TransactionScope(TransactionScopeOption.Suppress, TransactionScopeAsyncFlowOption.Enabled))
            {
                if (await _observer.ScalarAsync<int?>(Dialect.FindBackendSql, new { marker }) is not null)
                    return;
            }

            await Task.Delay(20);
        }

        throw new TimeoutException($"The statement marked {marker} never showed up on the server.");
    }

    private void Kill(int backend)
    {
        if (Dialect.KillSql.Contains("{0}", StringComparison.Ordinal))
            _observer.Execute(string.Format(CultureInfo.InvariantCulture, Dialect.KillSql, backend));
        else
            _observer.Scalar<object>(Dialect.KillSql, new { id = backend });
    }

    /// <summary>Runs <paramref name="call"/> outside the ambient scope (the other session's work).</summary>
    private static async Task Outside(Func<Task> call)
    {
        using var outside = new TransactionScope(TransactionScopeOption.Suppress, TransactionScopeAsyncFlowOption.Enabled);
        await call();
    }

}
