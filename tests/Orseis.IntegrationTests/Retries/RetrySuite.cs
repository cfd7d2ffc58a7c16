using System.Data.Common;
using System.Globalization;
using Orseis.IntegrationTests.Infrastructure;

namespace Orseis.IntegrationTests.Retries;

/// <summary>
/// Opt-in retries at the user's boundary on a real server: the connection a call runs on is ended by the server
/// (MariaDB's KILL, PostgreSQL's pg_terminate_backend) while the statement runs, found by a marker in its text. A read
/// outside a transaction is run again and succeeds, counted and on its span; a write is not run again (its rows are
/// counted); nothing inside a transaction is; with retries off the caller gets the broken connection, as before.
/// </summary>
public abstract partial class RetrySuite
{
    protected abstract Dialect Dialect { get; }

    /// <summary>A read that sleeps <c>seconds</c> and answers 42, carrying <paramref name="marker"/>.</summary>
    protected abstract string SlowRead(string marker);

    /// <summary>
    /// A write of one row into <paramref name="table"/> that then sleeps, carrying <paramref name="marker"/>: killed in
    /// its sleep, and run again, it would leave one row more than the first run did.
    /// </summary>
    protected abstract string SlowWrite(string table, string marker);

    private Database Open(string pool, bool retries) => Dialect.Open(ExecutionMode.OpenPerCall, configure: o =>
    {
        o.PoolName = pool;
        o.Retry.Enabled = retries;
        o.Retry.Budget = TimeSpan.FromSeconds(10);
        o.Diagnostics.Detectors = Orseis.Diagnostics.FindingKind.FrequentRetries;
    });

    private static string Unique(string what) => $"orseis_{what}_{Guid.NewGuid():N}"[..28];

    protected async Task A_read_whose_connection_is_killed_is_run_again(bool async)
    {
        string pool = Unique("retry_read");
        using var probe = new RetryProbe(pool);
        await using Database db = Open(pool, retries: true);
        string marker = Unique("mark");

        Task<bool> kill = KillOnceAsync(marker);
        int answer = async
            ? await db.ScalarAsync<int>(SlowRead(marker))
            : await Task.Run(() => db.Scalar<int>(SlowRead(marker)));

        Assert.True(await kill, "the read's connection was never found to be killed");
        Assert.Equal(42, answer);
        Assert.Equal(1, probe.Count(OrseisRetry.ReadConnectionBroken));
        Assert.Contains(probe.Events, e => e.Tags.Any(t => t.Key == "orseis.retry.reason" && Equals(t.Value, OrseisRetry.ReadConnectionBroken)));
        Assert.Empty(db.GetPoolReport().Findings); // one KILL is one burst: not frequent retries
    }

    /// <summary>
    /// The caller's word (<see cref="ParameterBag.OnlyReads"/>) overrides the text's: a read whose text is no read by its
    /// test (a backslash, in a comment) is run again when the caller says it reads; a read by its text is not when the
    /// caller says it writes.
    /// </summary>
    protected async Task The_callers_word_decides_whether_a_killed_call_is_run_again(bool onlyReads)
    {
        string pool = Unique("retry_word");
        using var probe = new RetryProbe(pool);
        await using Database db = Open(pool, retries: true);
        string marker = Unique("mark");
        string sql = onlyReads ? SlowRead(marker) + " /* a\\b */" : SlowRead(marker);
        var args = new ParameterBag { OnlyReads = onlyReads };

        Task<bool> kill = KillOnceAsync(marker);
        if (onlyReads)
        {
            Assert.Equal(42, await db.ScalarAsync<int>(sql, args));
            Assert.Equal(1, probe.Count(OrseisRetry.ReadConnectionBroken));
        }
        else
        {
            var broken = await Assert.ThrowsAsync<ConnectionBrokenException>(() => db.ScalarAsync<int>(sql, args));
            Assert.False(OrseisRetry.IsSafeToRetry(broken), "the caller said the call writes");
            Assert.Equal(0, probe.Total);
        }

        Assert.True(await kill, "the call's connection was never found to be killed");
    }

    protected async Task Without_retries_a_killed_read_fails_as_before()
    {
        string pool = Unique("retry_off");
        using var probe = new RetryProbe(pool);
        await using Database db = Open(pool, retries: false);
        string marker = Unique("mark");

        Task<bool> kill = KillOnceAsync(marker);
        var broken = await Assert.ThrowsAsync<ConnectionBrokenException>(() => db.ScalarAsync<int>(SlowRead(marker)));

        Assert.True(await kill);
        Assert.False(broken.InTransaction);
        Assert.True(broken.StatementMayHaveRun);
        Assert.True(OrseisRetry.IsSafeToRetry(broken), "a read whose connection broke outside a transaction is safe to retry");
        Assert.Equal(0, probe.Total);
        Assert.Equal(1, await db.ScalarAsync<int>("select 1"));
    }

    protected async Task A_write_whose_connection_is_killed_is_not_run_again()
    {
        string pool = Unique("retry_write");
        using var probe = new RetryProbe(pool);
        await using Database db = Open(pool, retries: true);
        string table = Unique("t");
        await db.ExecuteAsync("create table " + table + " (v int)"); // a name, not an argument: not interpolated
        try
        {
            string marker = Unique("mark");
            Task<bool> kill = KillOnceAsync(marker);
            var broken = await Assert.ThrowsAsync<ConnectionBrokenException>(() => db.ExecuteAsync(SlowWrite(table, marker)));
            Assert.True(await kill);

            Assert.False(OrseisRetry.IsSafeToRetry(broken), "a write whose connection broke is never safe to retry");
            Assert.Equal(0, probe.Total);
            long rows = await db.ScalarAsync<long>("select count(*) from " + table);
            Assert.Equal(WriteRowsAfterKill, rows);
        }
        finally
        {
            await db.ExecuteAsync("drop table " + table);
        }
    }

    /// <summary>The rows <see cref="SlowWrite"/> leaves when killed in its sleep and not run again.</summary>
    protected abstract long WriteRowsAfterKill { get; }

    protected async Task Inside_a_transaction_nothing_is_run_again()
    {
        string pool = Unique("retry_tx");
        using var probe = new RetryProbe(pool);
        await using Database db = Open(pool, retries: true);
        await using Session session = await db.OpenSessionAsync();
        await using SessionTransaction transaction = await session.BeginTransactionAsync();
        string marker = Unique("mark");

        Task<bool> kill = KillOnceAsync(marker);
        var broken = await Assert.ThrowsAsync<ConnectionBrokenException>(() => session.ScalarAsync<int>(SlowRead(marker)));

        Assert.True(await kill);
        Assert.True(broken.InTransaction);
        Assert.False(OrseisRetry.IsSafeToRetry(broken));
        Assert.Equal(0, probe.Total);
    }

    protected async Task Two_units_crossing_updates_both_commit_the_deadlock_victim_run_again(bool async = true)
    {
        string pool = Unique("retry_unit");
        using var probe = new RetryProbe(pool);
        await using Database db = Open(pool, retries: true);
        string table = Unique("d");
        await db.ExecuteAsync("create table " + table + " (id int primary key, v int)");
        try
        {
            await db.ExecuteAsync("insert into " + table + " (id, v) values (1, 0), (2, 0)");
            string update = "update " + table + " set v = v + 1 where id = @id";
            var firstUpdated = new[] { new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously), new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously) };
            int[] runs = new int[2];

            // Unit 0 updates row 1 then row 2; unit 1 row 2 then row 1: on their first runs each waits for the other's
            // first update, so their second updates cross and the server picks a deadlock victim.
            Task Unit(int me) => db.InTransactionAsync(async (session, token) =>
            {
                int run = Interlocked.Increment(ref runs[me]);
                await session.ExecuteAsync(update, new { id = me + 1 }, cancellationToken: token);
                if (run == 1)
                {
                    firstUpdated[me].TrySetResult();
                    await firstUpdated[1 - me].Task.WaitAsync(TimeSpan.FromSeconds(10), token);
                }

                await session.ExecuteAsync(update, new { id = 2 - me }, cancellationToken: token);
            });

            // The same on the calling thread (InTransaction): each unit on a thread of its own, blocked as a sync caller is.
            void SyncUnit(int me) => db.InTransaction(session =>
            {
                int run = Interlocked.Increment(ref runs[me]);
                session.Execute(update, new { id = me + 1 });
                if (run == 1)
                {
                    firstUpdated[me].TrySetResult();
                    Assert.True(firstUpdated[1 - me].Task.Wait(TimeSpan.FromSeconds(10)));
                }

                session.Execute(update, new { id = 2 - me });
            });

            Task[] units = async
                ? [Unit(0), Unit(1)]
                : [Task.Factory.StartNew(() => SyncUnit(0), TaskCreationOptions.LongRunning), Task.Factory.StartNew(() => SyncUnit(1), TaskCreationOptions.LongRunning)];
            await Task.WhenAll(units).WaitAsync(TimeSpan.FromSeconds(60));

            Assert.Equal(3, runs[0] + runs[1]); // one of them ran twice
            Assert.Equal(1, probe.Count(OrseisRetry.TransactionRolledBack));
            long[] values = (await db.QueryAsync<long>("select v from " + table + " order by id")).ToArray();
            Assert.Equal([2L, 2L], values); // both units committed, each once
        }
        finally
        {
            await db.ExecuteAsync("drop table " + table);
        }
    }

    /// <summary>
    /// Finds the other connection whose running statement carries <paramref name="marker"/> and ends it, once; false
    /// when none ran within 10 s.
    /// </summary>
    protected async Task<bool> KillOnceAsync(string marker)
    {
        DbConnectionStringBuilder builder = Dialect.Factory.CreateConnectionStringBuilder()!;
        builder.ConnectionString = Dialect.ConnectionString;
        builder["Pooling"] = false;
        await using DbConnection admin = Dialect.Factory.CreateConnection()!;
        admin.ConnectionString = builder.ConnectionString;
        await admin.OpenAsync();
        DateTime until = DateTime.UtcNow.AddSeconds(10);
        while (DateTime.UtcNow < until)
        {
            await using DbCommand find = admin.CreateCommand();
            find.CommandText = Dialect.FindBackendSql;
            DbParameter p = find.CreateParameter();
            p.ParameterName = "@marker";
            p.Value = marker;
            find.Parameters.Add(p);
            if (await find.ExecuteScalarAsync() is { } id and not DBNull)
            {
                await using DbCommand kill = admin.CreateCommand();
                if (Dialect.KillSql.Contains("{0}", StringComparison.Ordinal))
                {
                    kill.CommandText = string.Format(CultureInfo.InvariantCulture, Dialect.KillSql, Convert.ToInt64(id, CultureInfo.InvariantCulture));
                }
                else
                {
                    kill.CommandText = Dialect.KillSql;
                    DbParameter idParameter = kill.CreateParameter();
                    idParameter.ParameterName = "@id";
                    idParameter.Value = id;
                    kill.Parameters.Add(idParameter);
                }

                await kill.ExecuteNonQueryAsync();
                return true;
            }

            await Task.Delay(20);
        }

        return false;
    }
}

public sealed class MariaDbRetryTests : RetrySuite
{
    protected override Dialect Dialect { get; } = new MySqlDialect();

    protected override string SlowRead(string marker) => $"select sleep(2) + 42 as {marker}";

    // MySqlConnector sends both statements at once; the insert commits on its own (autocommit) before the sleep is killed.
    protected override string SlowWrite(string table, string marker) => $"insert into {table} (v) values (1); select sleep(2) as {marker}";

    protected override long WriteRowsAfterKill => 1;

    [MySqlFact]
    public Task A_killed_read_is_run_again() => A_read_whose_connection_is_killed_is_run_again(async: true);

    [MySqlFact]
    public Task A_killed_sync_read_is_run_again() => A_read_whose_connection_is_killed_is_run_again(async: false);

    [MySqlFact]
    public Task Retries_off_a_killed_read_fails_as_before() => Without_retries_a_killed_read_fails_as_before();

    [MySqlFact]
    public Task A_killed_call_the_caller_says_reads_is_run_again() => The_callers_word_decides_whether_a_killed_call_is_run_again(onlyReads: true);

    [MySqlFact]
    public Task A_killed_read_the_caller_says_writes_is_not_run_again() => The_callers_word_decides_whether_a_killed_call_is_run_again(onlyReads: false);

    [MySqlFact]
    public Task A_killed_write_is_not_run_again() => A_write_whose_connection_is_killed_is_not_run_again();

    [MySqlFact]
    public Task In_a_transaction_nothing_is_run_again() => Inside_a_transaction_nothing_is_run_again();

    [MySqlFact]
    public Task A_deadlock_victims_unit_of_work_is_run_again() => Two_units_crossing_updates_both_commit_the_deadlock_victim_run_again();

    [MySqlFact]
    public Task A_deadlock_victims_sync_unit_of_work_is_run_again() => Two_units_crossing_updates_both_commit_the_deadlock_victim_run_again(async: false);

    [MySqlFact]
    public Task A_retry_reaches_the_OpenTelemetry_SDK_as_a_count_and_a_span_event() => A_retry_is_exported_through_the_OpenTelemetry_SDK();

    [MySqlFact]
    public Task A_retry_is_read_over_EventPipe_as_dotnet_counters_reads_it() => A_retry_is_counted_over_EventPipe();
}

public sealed class PostgresRetryTests : RetrySuite
{
    protected override Dialect Dialect { get; } = new PostgresDialect();

    protected override string SlowRead(string marker) => $"select 42 as {marker} from pg_sleep(2)";

    // One statement: the row is written while it sleeps, and rolled back when the backend is terminated.
    protected override string SlowWrite(string table, string marker) => $"insert into {table} (v) select 1 as {marker} from pg_sleep(2)";

    protected override long WriteRowsAfterKill => 0;

    [PostgresFact]
    public Task A_killed_read_is_run_again() => A_read_whose_connection_is_killed_is_run_again(async: true);

    [PostgresFact]
    public Task A_killed_sync_read_is_run_again() => A_read_whose_connection_is_killed_is_run_again(async: false);

    [PostgresFact]
    public Task Retries_off_a_killed_read_fails_as_before() => Without_retries_a_killed_read_fails_as_before();

    [PostgresFact]
    public Task A_killed_call_the_caller_says_reads_is_run_again() => The_callers_word_decides_whether_a_killed_call_is_run_again(onlyReads: true);

    [PostgresFact]
    public Task A_killed_read_the_caller_says_writes_is_not_run_again() => The_callers_word_decides_whether_a_killed_call_is_run_again(onlyReads: false);

    [PostgresFact]
    public Task A_killed_write_is_not_run_again() => A_write_whose_connection_is_killed_is_not_run_again();

    [PostgresFact]
    public Task In_a_transaction_nothing_is_run_again() => Inside_a_transaction_nothing_is_run_again();

    [PostgresFact]
    public Task A_deadlock_victims_unit_of_work_is_run_again() => Two_units_crossing_updates_both_commit_the_deadlock_victim_run_again();

    [PostgresFact]
    public Task A_deadlock_victims_sync_unit_of_work_is_run_again() => Two_units_crossing_updates_both_commit_the_deadlock_victim_run_again(async: false);

    [PostgresFact]
    public Task A_retry_reaches_the_OpenTelemetry_SDK_as_a_count_and_a_span_event() => A_retry_is_exported_through_the_OpenTelemetry_SDK();

    [PostgresFact]
    public Task A_retry_is_read_over_EventPipe_as_dotnet_counters_reads_it() => A_retry_is_counted_over_EventPipe();
}
