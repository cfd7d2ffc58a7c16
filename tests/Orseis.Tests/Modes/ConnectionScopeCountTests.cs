using Orseis.Diagnostics;

namespace Orseis.Tests.Modes;

/// <summary>
/// A scope's counts with and without timing. A call that takes the scope's first connection counts its reuse in the
/// connection's holder (no atomic), a call that takes any later connection in the scope; timed or not, a call that takes
/// the parked connection takes it out of the parked count until it parks again. Whichever
/// way a reuse or a park was counted, the report and the scope's own count read the same, call by call and at the end.
/// </summary>
public sealed class ConnectionScopeCountTests()
    : RecordedScopeTest("create table items (id integer primary key)", "insert into items (id) values (1), (2), (3)")
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Reuses_and_parked_connections_read_exact_after_each_call_on_the_first_connection_and_the_next(bool timed)
    {
        await using Database db = Open(timed);
        await using (ConnectionScope scope = db.BeginScope())
        {
            for (long call = 1; call <= 5; call++)
            {
                Assert.Equal(call, await db.ScalarAsync<long>("select @call", new { call }));
                Assert.Equal(call - 1, scope.ReusedCalls);
                PoolReport report = db.GetPoolReport();
                Assert.Equal(1, report.ParkedConnections);
                Assert.Equal(0, report.InUse);
            }

            // A stream takes the parked connection as a hold of its own, in use while it is read, timed or not.
            int rows = 0;
            await foreach (long id in db.StreamAsync<long>("select id from items order by id"))
            {
                PoolReport during = db.GetPoolReport();
                Assert.Equal(1, during.InUse);
                Assert.Equal(0, during.ParkedConnections);
                rows++;
            }

            Assert.Equal(3, rows);
            Assert.Equal(5, scope.ReusedCalls);
            Assert.Equal(1, db.GetPoolReport().ParkedConnections);

            // The first connection goes back idle. The scope, having paused, parks one call in four: the fourth call's
            // connection is parked, and the two calls after it take it; their reuses count on the scope.
            Time.Advance(TimeSpan.FromMilliseconds(4));
            Assert.Equal(0, db.GetPoolReport().ParkedConnections);
            for (long call = 1; call <= 6; call++)
                Assert.Equal(call, await db.ScalarAsync<long>("select @call", new { call }));
            Assert.Equal(7, scope.ReusedCalls);
            PoolReport after = db.GetPoolReport();
            Assert.Equal(1, after.ParkedConnections);
            Assert.Equal(0, after.InUse);
            Assert.Equal(5, after.Opens);
        }

        PoolReport ended = db.GetPoolReport();
        Assert.Equal(7, ended.ScopeReuses);
        Assert.Equal(0, ended.ParkedConnections);
        Assert.Equal(0, ended.InUse);
        Assert.Equal(0, Source.OpenConnections);
        Assert.Equal(Source.CommandsCreated, Source.Disposed.Count);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_call_that_took_the_parked_connection_and_finds_another_parked_at_its_end_leaves_one_counted(bool timed)
    {
        await using Database db = Open(timed);
        await using (ConnectionScope scope = db.BeginScope())
        {
            Assert.Equal(1, await db.ScalarAsync<long>("select 1"));

            // The outer call takes the parked connection; a call made while it maps its row finds nothing parked, opens its
            // own and parks it; the outer call's end finds that one parked and gives its own back to the pool.
            List<long> mapped = db.Query<long, long, long>(
                "select 1 as id, 2 as b", (a, b) => db.Scalar<long>("select 7") + a + b, splitOn: "b");
            Assert.Equal([10L], mapped);
            PoolReport report = db.GetPoolReport();
            Assert.Equal(1, report.ParkedConnections);
            Assert.Equal(0, report.InUse);
            Assert.Equal(2, report.Opens);
            Assert.Equal(1, Source.OpenConnections);
            Assert.Equal(1, scope.ReusedCalls);

            // The connection parked now is the scope's second: a call that takes it counts on the scope.
            Assert.Equal(3, await db.ScalarAsync<long>("select 3"));
            Assert.Equal(2, scope.ReusedCalls);
            Assert.Equal(1, db.GetPoolReport().ParkedConnections);
        }

        PoolReport ended = db.GetPoolReport();
        Assert.Equal(2, ended.ScopeReuses);
        Assert.Equal(0, ended.ParkedConnections);
        Assert.Equal(0, ended.InUse);
        Assert.Equal(0, Source.OpenConnections);
    }
}
