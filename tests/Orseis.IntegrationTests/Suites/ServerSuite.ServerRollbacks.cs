using System.Data.Common;
using Orseis.Diagnostics;

using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Suites;

/// <summary>
/// Transactions the server ended while the connection lived on: a deadlock victim, and (per server) failures that end
/// only the statement. After the server rolled a transaction back nothing runs in it (no statement in autocommit by
/// accident), a commit says nothing was committed, a rollback and a dispose succeed. Every outcome is read from another
/// connection, and the server's own transaction state where it can say it.
/// </summary>
public abstract partial class ServerSuite
{
    /// <summary>How a test ends the victim's transaction after the deadlock.</summary>
    public enum Ending
    {
        InsertThenRollback,
        InsertThenCommit,
        Commit,
        Rollback,
        Dispose,
    }

    /// <summary>
    /// The classic cross update in sessions of both modes' databases, sync and async by turns: the victim's next insert is
    /// refused (never autocommitted), its commit says nothing was committed, rollback and dispose succeed, and neither its
    /// update nor its insert is in the table afterwards; the survivor's work commits.
    /// </summary>
    protected async Task A_deadlock_victims_transaction_is_dead_until_it_is_disposed()
    {
        Database observer = Seed();
        int round = 0;
        foreach (ExecutionMode mode in new[] { ExecutionMode.OpenPerCall, ExecutionMode.ReuseConnection })
        {
            Database db = Open(mode);
            foreach (Ending ending in Enum.GetValues<Ending>())
            {
                bool async = round++ % 2 == 0;
                string what = $"{mode}, {ending}, {(async ? "async" : "sync")}";
                await using Session first = await db.OpenSessionAsync();
                await using Session second = await db.OpenSessionAsync();
                Deadlocked d = await DeadlockAsync(observer, first, second, 700 + (2 * round), what);

                // The victim's work is gone on the server: its first update is not visible and no transaction is open.
                await d.SurvivorTx.CommitAsync();
                int insertId = 500 + round;
                string insert = Text($"insert into {Table} (id, name, amount, created) values (@id, 'after deadlock', 1, @d)");
                switch (ending)
                {
                    case Ending.InsertThenRollback:
                    case Ending.InsertThenCommit:
                        TransactionRolledBackException refused = async
                            ? await Assert.ThrowsAsync<TransactionRolledBackException>(() => d.Victim.ExecuteAsync(insert, new { id = insertId, d = DateTime.Today }))
                            : Assert.Throws<TransactionRolledBackException>(() => d.Victim.Execute(insert, new { id = insertId, d = DateTime.Today }));
                        Assert.True(refused.IsTransient, what);
                        Assert.Same(d.Error, refused.InnerException);
                        Assert.Contains("deadlock", refused.Message, StringComparison.Ordinal);
                        Assert.Contains("nothing of it", refused.Message, StringComparison.Ordinal);
                        Assert.Same(d.VictimTx, d.Victim.Transaction);
                        if (ending == Ending.InsertThenRollback)
                        {
                            await End(d.VictimTx, Ending.Rollback, async);
                        }
                        else
                        {
                            TransactionRolledBackException commit = async
                                ? await Assert.ThrowsAsync<TransactionRolledBackException>(() => d.VictimTx.CommitAsync())
                                : Assert.Throws<TransactionRolledBackException>(d.VictimTx.Commit);
                            Assert.Contains("Nothing was committed", commit.Message, StringComparison.Ordinal);
                        }

                        break;
                    case Ending.Commit:
                        TransactionRolledBackException error = async
                            ? await Assert.ThrowsAsync<TransactionRolledBackException>(() => d.VictimTx.CommitAsync())
                            : Assert.Throws<TransactionRolledBackException>(d.VictimTx.Commit);
                        Assert.True(error.IsTransient, what);
                        Assert.Same(d.Error, error.InnerException);
                        Assert.Contains("Nothing was committed", error.Message, StringComparison.Ordinal);
                        break;
                    default:
                        await End(d.VictimTx, ending, async);
                        break;
                }

                Assert.Null(d.Victim.Transaction);
                d.VictimTx.Dispose(); // ended: a second dispose does nothing
                Assert.Equal(0, await CountAsync(observer, insertId));
                Assert.Equal(0, await CountAsync(observer, d.VictimRow)); // its work before the deadlock: rolled back
                Assert.Equal(1, await CountAsync(observer, d.SurvivorRow));
                Assert.Equal("survivor", await NameAsync(observer, 1));
                Assert.Equal("survivor", await NameAsync(observer, 2));
                if (Dialect.InTransactionSql is { } inTransaction)
                    Assert.Equal(0, await d.Victim.ScalarAsync<int>(inTransaction));

                // The session runs normally after: an autocommit write that stays.
                await d.Victim.ExecuteAsync(insert, new { id = insertId, d = DateTime.Today });
                Assert.Equal(1, await CountAsync(observer, insertId));
                await observer.ExecuteAsync(Text($"update {Table} set name = @name where id in (1, 2)"), new { name = "reset" });
            }
        }
    }

    /// <summary>
    /// A failure that ends only the statement leaves the transaction open, and its earlier work commits: a duplicate key
    /// and a command timeout (sync and async), on every server except PostgreSQL (where any error aborts the transaction:
    /// see the PostgreSQL tests). The connection stays in use after the provider stopped the timed-out statement.
    /// </summary>
    protected async Task A_failed_statement_that_ends_only_itself_keeps_the_transaction(bool timeoutClosesConnection)
    {
        Database observer = Seed();
        foreach (ExecutionMode mode in new[] { ExecutionMode.OpenPerCall, ExecutionMode.ReuseConnection })
        {
            await using Session session = await Open(mode).OpenSessionAsync();
            await using SessionTransaction tx = await session.BeginTransactionAsync();
            int id = mode == ExecutionMode.OpenPerCall ? 600 : 601;
            string insert = Text($"insert into {Table} (id, name, amount, created) values (@id, 'kept', 1, @d)");
            await session.ExecuteAsync(insert, new { id, d = DateTime.Today });
            await Assert.ThrowsAnyAsync<DbException>(() => session.ExecuteAsync(insert, new { id = 1, d = DateTime.Today }));
            CommandTimeoutException timedOut = await Assert.ThrowsAsync<CommandTimeoutException>(
                () => session.ExecuteAsync(Dialect.MarkedSleepSql(5, "orseis_tx_timeout"), timeout: TimeSpan.FromSeconds(1)));
            if (timeoutClosesConnection)
            {
                // MySql.Data closes the connection as it stops a timed-out statement, at times only just after the call
                // returned: the transaction is lost, said by the timeout when it saw the connection closed, and always by
                // the next call.
                Assert.Contains("command timeout", timedOut.Message, StringComparison.Ordinal);
                Assert.True(Assert.Throws<ConnectionBrokenException>(() => session.Execute("select 1")).InTransaction);
                await tx.RollbackAsync();
                Assert.Equal(0, await CountAsync(observer, id));
                continue;
            }

            Assert.DoesNotContain("connection", timedOut.Message, StringComparison.Ordinal);
            Assert.Throws<CommandTimeoutException>(() => session.Execute(Dialect.MarkedSleepSql(5, "orseis_tx_timeout"), timeout: TimeSpan.FromSeconds(1)));
            if (Dialect.InTransactionSql is { } inTransaction)
                Assert.Equal(1, await session.ScalarAsync<int>(inTransaction));
            await tx.CommitAsync();
            Assert.Equal(1, await CountAsync(observer, id));
        }
    }

    /// <summary>
    /// A deadlock is a <c>LockConflicts</c> finding of the victim's pool, counted, with the
    /// statement when command text capture is on; a pool without the detector stays silent.
    /// </summary>
    protected async Task A_deadlock_is_a_lock_conflict_finding_with_its_statement()
    {
        Database observer = Seed();
        var options = new OrseisOptions
        {
            Diagnostics = new DiagnosticsOptions { Detectors = FindingKind.LockConflicts, CaptureCommandText = true },
        };
        Database watched = new(Dialect.Factory, Dialect.ConnectionString, options);
        _owned.Add(watched);
        await using Session first = await watched.OpenSessionAsync();
        await using Session second = await watched.OpenSessionAsync();
        Deadlocked d = await DeadlockAsync(observer, first, second, 900, "finding");
        await d.SurvivorTx.CommitAsync();
        await d.VictimTx.DisposeAsync();

        PoolFinding finding = Assert.Single(watched.GetPoolReport().Findings, f => f.Kind == FindingKind.LockConflicts);
        Assert.Equal(1, finding.Figures["deadlocks"]);
        Assert.Equal(0, finding.Figures["lockWaitTimeouts"]);
        Assert.Contains("1 deadlock(s)", finding.Message, StringComparison.Ordinal);
        Assert.Contains($"update {Table}", finding.Location, StringComparison.Ordinal);
        Assert.Empty(observer.GetPoolReport().Findings);
    }

    private sealed record Deadlocked(
        Session Victim, SessionTransaction VictimTx, Exception Error, int VictimRow, SessionTransaction SurvivorTx, int SurvivorRow);

    /// <summary>
    /// Each session inserts a row of its own (<paramref name="rows"/> and the next id); then <paramref name="first"/> updates
    /// row 1 then 2, <paramref name="second"/> row 2 then 1: the server ends one of them with a deadlock error (which one is
    /// the server's choice), and the survivor, its updates through, names both rows "survivor".
    /// </summary>
    private async Task<Deadlocked> DeadlockAsync(Database observer, Session first, Session second, int rows, string what)
    {
        string update = Text($"update {Table} set name = @name where id = @id");
        string insert = Text($"insert into {Table} (id, name, amount, created) values (@id, 'before deadlock', 1, @d)");
        SessionTransaction firstTx = await first.BeginTransactionAsync();
        SessionTransaction secondTx = await second.BeginTransactionAsync();
        await first.ExecuteAsync(insert, new { id = rows, d = DateTime.Today });
        await second.ExecuteAsync(insert, new { id = rows + 1, d = DateTime.Today });
        await first.ExecuteAsync(update, new { name = "victim?", id = 1 });
        await second.ExecuteAsync(update, new { name = "victim?", id = 2 });

        string marker = "orseis_deadlock_" + Guid.NewGuid().ToString("N")[..12];
        Task<Exception?> firstWaits = Outcome.OnOwnThread(() => first.ExecuteAsync(update + $" /* {marker} */", new { name = "victim?", id = 2 }));
        await FindBackendAsync(observer, marker, firstWaits);
        Exception? secondError = await Outcome.FailureOf(() => second.ExecuteAsync(update, new { name = "victim?", id = 1 }));
        Exception? firstError = secondError is null ? await firstWaits : null;
        if (secondError is not null && await firstWaits is { } both)
            Assert.Fail($"{what}: both sessions failed. Second: {secondError}{Environment.NewLine}First: {both}");
        Exception error = firstError ?? secondError ?? throw new InvalidOperationException($"{what}: no deadlock");
        Assert.IsAssignableFrom<DbException>(error);
        Assert.Contains("eadlock", error.Message, StringComparison.Ordinal);

        bool firstIsVictim = firstError is not null;
        Session survivor = firstIsVictim ? second : first;
        await survivor.ExecuteAsync(Text($"update {Table} set name = 'survivor' where id in (1, 2)"));
        return firstIsVictim
            ? new Deadlocked(first, firstTx, error, rows, secondTx, rows + 1)
            : new Deadlocked(second, secondTx, error, rows + 1, firstTx, rows);
    }


    private static async Task End(SessionTransaction tx, Ending ending, bool async)
    {
        switch (ending)
        {
            case Ending.Rollback when async:
                await tx.RollbackAsync();
                break;
            case Ending.Rollback:
                tx.Rollback();
                break;
            case Ending.Dispose when async:
                await tx.DisposeAsync();
                break;
            default:
                tx.Dispose();
                break;
        }
    }

    private Task<string?> NameAsync(Database db, int id) =>
        db.ScalarAsync<string>(Text($"select name from {Table} where id = @id"), new { id });
}
