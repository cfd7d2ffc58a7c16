using System.Transactions;
using Microsoft.Data.Sqlite;
using Orseis.Tests.Infrastructure;

namespace Orseis.Tests.Modes;

/// <summary>
/// An ambient <see cref="TransactionScope"/> on SQLite: Microsoft.Data.Sqlite never joins one, so every mode refuses the
/// call (instead of running it outside the scope, its rows kept however the scope ends), and nothing is written.
/// </summary>
public sealed class TransactionScopeTests
{
    public static TheoryData<RunnerKind> Kinds => [RunnerKind.OpenPerCall, RunnerKind.ReuseConnection, RunnerKind.Session];

    [Fact]
    public void Microsoft_Data_Sqlite_does_not_join_a_scope_so_an_uncompleted_scope_keeps_its_rows()
    {
        using var file = new SqliteFile();
        using (var setup = new SqliteConnection(file.ConnectionString))
        {
            setup.Open();
            Run(setup, "create table t (v int)");
        }

        using (new TransactionScope())
        {
            using var connection = new SqliteConnection(file.ConnectionString);
            connection.Open();
            Run(connection, "insert into t values (1)");
            Assert.Throws<NotSupportedException>(() => connection.EnlistTransaction(Transaction.Current));
        }

        using var check = new SqliteConnection(file.ConnectionString);
        check.Open();
        using SqliteCommand count = check.CreateCommand();
        count.CommandText = "select count(*) from t";
        Assert.Equal(1L, count.ExecuteScalar()); // the scope was never completed, yet the row is there

        static void Run(SqliteConnection connection, string sql)
        {
            using SqliteCommand command = connection.CreateCommand();
            command.CommandText = sql;
            command.ExecuteNonQuery();
        }
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Every_call_under_a_scope_is_refused_naming_the_mode_and_nothing_is_written(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        const string Insert = "insert into people (id, name) values (100, 'scoped')";
        using (new TransactionScope(TransactionScopeAsyncFlowOption.Enabled))
        {
            var refused = Assert.Throws<InvalidOperationException>(() => db.Runner.Execute(Insert));
            Assert.StartsWith(
                kind == RunnerKind.ReuseConnection
                    ? "A TransactionScope is active, but ReuseConnection mode keeps one connection for every caller, opened outside this scope"
                    : "A TransactionScope is active, but Microsoft.Data.Sqlite connections never join a TransactionScope",
                refused.Message, StringComparison.Ordinal);
            Assert.Contains(kind switch { RunnerKind.OpenPerCall => "(OpenPerCall mode)", RunnerKind.ReuseConnection => "(ReuseConnection mode)", _ => "session on" }, refused.Message, StringComparison.Ordinal);
            Assert.Contains("its changes would stay even if the scope is not completed", refused.Message, StringComparison.Ordinal);
            await Assert.ThrowsAsync<InvalidOperationException>(() => db.Runner.ExecuteAsync(Insert));
            Assert.Throws<InvalidOperationException>(() => db.Runner.Execute("insert into people (id, name) values (@id, @name)", new[] { new { id = 101, name = "a" }, new { id = 102, name = "b" } }));
            Assert.Throws<InvalidOperationException>(() => db.Runner.Query<Person>("select * from people"));
            await Assert.ThrowsAsync<InvalidOperationException>(() => db.Runner.ScalarAsync<long>("select count(*) from people"));
            Assert.Throws<InvalidOperationException>(() => db.Runner.Stream<Person>("select * from people").ToList());
            await Assert.ThrowsAsync<InvalidOperationException>(async () => await db.Runner.StreamAsync<Person>("select * from people").ToListAsync());
            Assert.Throws<InvalidOperationException>(() => db.Runner.QueryMultiple("select 1; select 2"));
            if (db.Runner is Session session)
                Assert.Throws<InvalidOperationException>(() => session.BeginTransaction());
        }

        // Nothing was written, and the runner works once the scope is gone.
        Assert.Equal(5, db.Runner.Scalar<long>("select count(*) from people"));
        Assert.Equal(kind == RunnerKind.OpenPerCall ? 0 : 1, db.Database.GetPoolReport().InUse);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void A_suppressed_scope_runs_the_call_outside_on_purpose(RunnerKind kind)
    {
        using var db = new SeededDatabase(kind);
        using (new TransactionScope())
        {
            using (new TransactionScope(TransactionScopeOption.Suppress))
                Assert.Equal(1, db.Runner.Execute("insert into people (id, name) values (100, 'outside')"));
        }

        Assert.Equal(6, db.Runner.Scalar<long>("select count(*) from people"));
    }

    [Fact]
    public void With_no_scope_the_check_is_one_read_that_allocates_nothing()
    {
        using var db = new SeededDatabase(RunnerKind.ReuseConnection);
        Assert.Null(Transaction.Current);
        _ = Transaction.Current;
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < 1000; i++)
            _ = Transaction.Current;
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);

        // And a runner that saw a scope costs the same afterwards as before.
        long first = Measure(db.Runner);
        using (new TransactionScope(TransactionScopeOption.Suppress))
            db.Runner.Scalar<long>("select 1");
        using (new TransactionScope())
            Assert.Throws<InvalidOperationException>(() => db.Runner.Scalar<long>("select 1"));
        Assert.Equal(first, Measure(db.Runner));

        static long Measure(SqlRunner runner)
        {
            runner.Scalar<long>("select 1");
            long start = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < 100; i++)
                runner.Scalar<long>("select 1");
            return GC.GetAllocatedBytesForCurrentThread() - start;
        }
    }

    [Fact]
    public void A_session_opened_inside_a_scope_is_refused_too()
    {
        using var db = new SeededDatabase(RunnerKind.OpenPerCall);
        using (new TransactionScope())
        {
            using Session session = db.Database.OpenSession();
            var refused = Assert.Throws<InvalidOperationException>(() => session.Execute("insert into people (id, name) values (100, 'scoped')"));
            Assert.Contains("Use the session's own transaction instead", refused.Message, StringComparison.Ordinal);
        }

        Assert.Equal(5, db.Runner.Scalar<long>("select count(*) from people"));
    }
}
