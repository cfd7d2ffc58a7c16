using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Modes;

/// <summary>
/// SQLite rolls a whole transaction back for a constraint broken under <c>OR ROLLBACK</c> (and may for SQLITE_FULL,
/// IOERR, BUSY and NOMEM), and the connection lives on in autocommit. Orseis asks SQLite after a failed statement, so the
/// next call in the transaction is refused rather than autocommitted, and the commit says nothing was committed; a
/// failure that ends only the statement keeps the transaction. Both modes' sessions, sync and async; rows are read
/// through another database on the same file.
/// </summary>
public sealed class ServerRollbackTests
{
    [Theory]
    [InlineData(RunnerKind.OpenPerCall, false)]
    [InlineData(RunnerKind.ReuseConnection, true)]
    public async Task A_transaction_sqlite_rolled_back_refuses_later_calls_and_commits_nothing(RunnerKind kind, bool async)
    {
        using var db = new SeededDatabase(kind);
        using var observer = new Database(Microsoft.Data.Sqlite.SqliteFactory.Instance, $"Data Source={db.Path}");
        await using Session session = await db.Database.OpenSessionAsync();
        SessionTransaction tx = await session.BeginTransactionAsync();
        session.Execute("insert into people (id, name) values (100, 'in the transaction')");

        var constraint = Assert.ThrowsAny<System.Data.Common.DbException>(() => session.Execute("insert or rollback into people (id, name) values (1, 'duplicate')"));
        TransactionRolledBackException refused = async
            ? await Assert.ThrowsAsync<TransactionRolledBackException>(() => session.ExecuteAsync("insert into people (id, name) values (101, 'would autocommit')"))
            : Assert.Throws<TransactionRolledBackException>(() => session.Execute("insert into people (id, name) values (101, 'would autocommit')"));
        Assert.Same(constraint, refused.InnerException);
        Assert.False(refused.IsTransient);
        Assert.Contains("SQLite error 19", refused.Message, StringComparison.Ordinal);

        TransactionRolledBackException commit = async
            ? await Assert.ThrowsAsync<TransactionRolledBackException>(() => tx.CommitAsync())
            : Assert.Throws<TransactionRolledBackException>(tx.Commit);
        Assert.Contains("Nothing was committed", commit.Message, StringComparison.Ordinal);
        Assert.Null(session.Transaction);
        Assert.Equal(0, observer.Scalar<int>("select count(*) from people where id >= 100"));

        session.Execute("insert into people (id, name) values (102, 'after')");
        Assert.Equal(1, observer.Scalar<int>("select count(*) from people where id >= 100"));
    }

    [Fact]
    public void A_failure_that_ends_only_the_statement_keeps_the_transaction()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        using Session session = db.Database.OpenSession();
        SessionTransaction tx = session.BeginTransaction();
        session.Execute("insert into people (id, name) values (100, 'kept')");
        Assert.ThrowsAny<System.Data.Common.DbException>(() => session.Execute("insert into people (id, name) values (1, 'duplicate')"));
        session.Execute("insert into people (id, name) values (101, 'kept too')");
        tx.Commit();
        Assert.Equal(2, db.Database.Scalar<int>("select count(*) from people where id >= 100"));
    }
}
